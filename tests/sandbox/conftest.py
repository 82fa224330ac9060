"""Fixtures for the sandbox tests: a home and a workspace outside /tmp, and the sandbox itself.

Outside /tmp on purpose: a command gets a private /tmp, so a secret or a target under
/tmp would be out of its reach for that reason alone and prove nothing about the rest.
/var/tmp is used because every user can write there (the same tests run as `nobody`).
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest

from agent_lsp.agent.sandbox import detect


def require_sandbox() -> str:
    """The bwrap in use, or skip (fail under CI) with the reason none can start."""
    got = detect()
    if got.ok:
        return got.bwrap or ""
    if os.environ.get("CI"):
        pytest.fail(f"no sandbox can start in CI: {got.reason}")
    pytest.skip(f"no sandbox can start here: {got.reason}")


@pytest.fixture
def bwrap() -> str:
    return require_sandbox()


@pytest.fixture
def outside() -> Path:
    """A scratch folder outside /tmp, removed afterwards."""
    base = Path(tempfile.mkdtemp(prefix="agent-lsp-sbx-", dir="/var/tmp"))
    try:
        yield base
    finally:
        shutil.rmtree(base, ignore_errors=True)


@pytest.fixture
def home(outside: Path) -> Path:
    """A HOME with the secrets an attacker wants, and agent-lsp's own config and state."""
    h = outside / "home"
    (h / ".ssh").mkdir(parents=True)
    (h / ".ssh" / "id_x").write_text("PRIVATE-KEY-MATERIAL\n")
    (h / ".aws").mkdir()
    (h / ".aws" / "credentials").write_text("aws_secret_access_key=AWSSECRET\n")
    (h / ".netrc").write_text("machine example.com password NETRCSECRET\n")
    (h / ".git-credentials").write_text("https://u:GITCREDSECRET@example.com\n")
    (h / ".docker").mkdir()
    (h / ".docker" / "config.json").write_text('{"auths": {"x": {"auth": "DOCKERSECRET"}}}\n')
    (h / ".config" / "gh").mkdir(parents=True)
    (h / ".config" / "gh" / "hosts.yml").write_text("oauth_token: GHSECRET\n")
    (h / ".config" / "agent-lsp").mkdir()
    (h / ".config" / "agent-lsp" / "settings.json").write_text('{"apiKey": "CONFIGSECRET"}\n')
    (h / ".local" / "state" / "agent-lsp").mkdir(parents=True)
    (h / ".local" / "state" / "agent-lsp" / "trust.json").write_text('{"STATESECRET": true}\n')
    return h


@pytest.fixture
def ws(outside: Path) -> Path:
    w = outside / "ws"
    (w / ".git" / "hooks").mkdir(parents=True)
    (w / ".git" / "config").write_text("[core]\n")
    (w / ".agent-lsp").mkdir()
    (w / ".agent-lsp" / "permissions.json").write_text('{"allow": []}\n')
    (w / "calc.py").write_text("x = 1\n")
    return w


def home_env(home: Path, **extra: str) -> dict[str, str]:
    """The environment of an agent whose HOME is `home` (XDG folders at their defaults)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("XDG_")}
    env.update(HOME=str(home), **extra)
    return env
