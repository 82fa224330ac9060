"""Shared fixtures: the scripted model server and a scratch workspace."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.scripted_model import ScriptedModel

# Suites that drive a real program through a terminal or a browser (Toad and acpc in tmux,
# Vim/Neovim/Emacs on a pty, VS Code in Chromium). Their waits read another program's screen,
# and on a loaded 2-core machine a key can land before that program is ready for it. One
# failure there is run once more (pytest-rerunfailures); the summary line counts every
# rerun ("N rerun"), so a flake stays visible, and a test that fails twice fails.
REAL_CLIENT_SUITES = {"acp_clients", "editors", "vscode"}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    here = Path(__file__).parent
    for item in items:
        try:
            suite = item.path.relative_to(here).parts[0]
        except ValueError:
            continue
        if suite in REAL_CLIENT_SUITES:
            item.add_marker(pytest.mark.flaky(reruns=1, reruns_delay=2))


@pytest.fixture
def model():
    """A fresh scripted OpenAI-compatible server on 127.0.0.1; add replies with model.add(...)."""
    m = ScriptedModel().start()
    try:
        yield m
    finally:
        m.stop()


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    ws.mkdir()
    return ws


@pytest.fixture(autouse=True)
def _isolated_state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Transcripts and trust go to a temp XDG state dir; no test reads the developer's real keys or settings."""
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))  # no developer's settings.json
    for var in ("AGENT_BASE_URL", "AGENT_API_KEY", "OPENAI_API_KEY", "AGENT_MODEL"):
        monkeypatch.delenv(var, raising=False)
