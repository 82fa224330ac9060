"""What outlives a process: transcripts, past sessions, memory, undo records (never in the repository).

Everything here lives under the state folder, `$XDG_STATE_HOME/agent-lsp/` (default
`~/.local/state/agent-lsp/`), beside the trust store (policy/trust.py).
"""

from __future__ import annotations

import os
from pathlib import Path


def state_dir() -> Path:
    base = os.environ.get("XDG_STATE_HOME") or os.path.join(os.path.expanduser("~"), ".local", "state")
    return Path(base) / "agent-lsp"
