"""Shared fixtures: the scripted model server and a scratch workspace."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.scripted_model import ScriptedModel


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
