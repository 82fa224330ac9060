"""Real MCP servers from PyPI, each in a venv of its own that the tests create once.

The venvs are cached under ~/.cache/agent-lsp-tools/mcp-servers (or
$AGENT_LSP_TOOLS_CACHE) so repeated runs are fast; building them needs PyPI. Each venv
pins its server and the `mcp` SDK it wants, independent of this project's own venv.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

SERVERS = {"mcp-server-time": "2026.10.19", "mcp-server-git": "2026.10.19"}
FLAKY = Path(__file__).with_name("flaky_server.py")


def _cache() -> Path:
    base = os.environ.get("AGENT_LSP_TOOLS_CACHE") or os.path.join(os.path.expanduser("~"), ".cache", "agent-lsp-tools")
    return Path(base) / "mcp-servers"


def server_exe(package: str) -> Path:
    """The server's console script in its own venv, built on first use."""
    version = SERVERS[package]
    venv = _cache() / f"{package}-{version}"
    exe, done = venv / "bin" / package, venv / ".installed"
    if exe.exists() and done.exists():
        return exe
    shutil.rmtree(venv, ignore_errors=True)
    venv.parent.mkdir(parents=True, exist_ok=True)
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    r = subprocess.run([str(venv / "bin" / "pip"), "install", "-q", "--disable-pip-version-check",
                        f"{package}=={version}", "mcp>=2.3,<3"], capture_output=True, text=True, timeout=900)
    if r.returncode != 0 or not exe.exists():
        pytest.fail(f"could not install {package}=={version} from PyPI into {venv}:\n{r.stderr[-3000:]}")
    done.write_text(version + "\n")
    return exe


@pytest.fixture(scope="session")
def time_server() -> Path:
    return server_exe("mcp-server-time")


@pytest.fixture(scope="session")
def git_server() -> Path:
    return server_exe("mcp-server-git")


def flaky_entry(*extra: str) -> dict:
    return {"command": sys.executable, "args": [str(FLAKY), *extra]}
