"""Fixtures for the ACP face: a real `agent-lsp acp` subprocess driven by the SDK's client side."""

from __future__ import annotations

import contextlib
from pathlib import Path

import pytest

pytest.importorskip("acp", reason="the ACP SDK is not installed (pip install -e '.[dev]')")

from tests.acp.client import EditorClient, run_agent  # noqa: E402


@pytest.fixture
def agent_log(tmp_path: Path) -> Path:
    return tmp_path / "agent-stderr.log"


@pytest.fixture
async def start(workspace, model, agent_log):
    """`conn, proc = await start(client, *flags)`: agent-lsp acp on `workspace` and `model`, initialized."""
    async with contextlib.AsyncExitStack() as stack:
        async def go(client: EditorClient, *flags: str, root: Path | None = None):
            return await stack.enter_async_context(
                run_agent(client, root or workspace, model.base_url, agent_log, "--timeout", "30", *flags))  # a later --timeout wins

        yield go
    log = agent_log.read_text() if agent_log.exists() else ""
    assert "Traceback" not in log, log
    assert "sk-test-acp-KEY" not in log, "the API key reached the agent's log"
