"""Shared pieces of the attack tests: a repository's files, a marker that must never appear, the CLI."""

from __future__ import annotations

import json
import os
import stat
import subprocess
from pathlib import Path
from typing import Any

from tests.test_cli import agent  # noqa: F401 (re-exported: `agent-lsp` as a real subprocess)


def write(path: Path, value: Any) -> Path:
    """Write JSON (or text, for a str) to `path`, creating folders."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(value if isinstance(value, str) else json.dumps(value))
    return path


def script(path: Path, body: str) -> Path:
    """An executable shell script in the repository (what an attacker ships)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("#!/bin/sh\n" + body + "\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return path


def git(ws: Path, *args: str) -> str:
    return subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *args], cwd=ws,
                          check=True, capture_output=True, text=True).stdout


def trust_file() -> Path:
    return Path(os.environ["XDG_STATE_HOME"]) / "agent-lsp" / "trust.json"


def no_traceback(text: str) -> None:
    assert "Traceback" not in text and 'File "' not in text, text
