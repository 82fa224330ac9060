"""Token accounting per turn: the server's usage when it sends it, an estimate marked as such when not."""

from __future__ import annotations

import json

import pytest

from agent_lsp.agent.model.llm import Reply
from agent_lsp.agent.model.usage import Usage
from tests.helpers import RecordingHost, make_session, no_violations  # noqa: F401 (autouse fixture)
from tests.scripted_model import reply, tool_call


@pytest.mark.parametrize("stream", [True, False], ids=["stream", "whole"])
async def test_a_turn_sums_the_servers_usage_over_its_calls(workspace, model, stream):
    (workspace / "a.py").write_text("x = 1\n")
    model.add(tool_call("read_file", {"path": "a.py"}), reply("It sets x."))
    session = make_session(workspace, model, RecordingHost(), stream=stream)
    result = await session.run_turn("what does a.py do?")
    await session.client.aclose()
    assert result.status == "done"
    # the scripted model counts len(json(messages)) // 4 for the prompt of each request
    expected_prompt = sum(len(json.dumps(r["messages"])) // 4 for r in model.requests)
    assert result.prompt_tokens == expected_prompt > 0
    assert result.completion_tokens >= 2
    assert result.tokens_estimated is False


def test_a_reply_without_usage_is_estimated_and_marked():
    u = Usage()
    u.add(Reply({"role": "assistant", "content": "x" * 400}, "stop", None), [{"role": "user", "content": "y" * 800}])
    assert u.estimated is True
    assert 200 <= u.prompt_tokens <= 220 and 100 <= u.completion_tokens <= 120
    u.add(Reply({"role": "assistant", "content": "ok"}, "stop", {"prompt_tokens": 7, "completion_tokens": 3}), [])
    assert u.as_dict()["tokens_estimated"] is True, "one estimated call marks the whole count"
    assert u.calls == 2
