"""The OS sandbox every command the model chooses runs in (bubblewrap on Linux).

The shell rules and approvals decide whether a command runs; this decides what it can
touch once it does: the workspace writable (`.git/` and `.agent-lsp/` excepted), a
private /tmp, everything else read-only, credentials and agent-lsp's own keys, trust and
memory unreadable, no network, no view of the agent's process. Modules: `choices` (the
settings and how a project may only narrow them), `reach` (the real paths one
command may write, may not write, may not read), `bwrap` (the command line), `detect` (what can start here), `envscrub` (the
environment without credentials), `explain` (what the person and the model are told),
`wrap` (the entry the runners call).
"""

from .choices import MODES, SandboxConfig, clamp_project, overlay
from .detect import Availability, detect
from .wrap import Wrapped, about, availability, start_notes, wrap

__all__ = ["MODES", "Availability", "SandboxConfig", "Wrapped", "about", "availability", "clamp_project", "detect",
           "overlay", "start_notes", "wrap"]
