"""ask_user: asked through `agentLsp/askUser` when the client says it can answer, else the model is told nobody can."""

from __future__ import annotations

from tests.lsp.conftest import tool_results
from tests.lsp_helpers import execute
from tests.scripted_model import reply, tool_call


async def test_the_answer_reaches_the_model(launch, model):
    editor = await launch(ask=True)
    editor.ask_answer = "teal, please"
    model.add(tool_call("ask_user", {"question": "Which colour for the button?"}), reply("Teal it is."))
    result = await execute(editor, "agentLsp.runTask", {"task": "style the button"})
    assert result["status"] == "done"
    assert editor.questions == ["Which colour for the button?"]
    assert tool_results(model) == ["teal, please"]
    assert model.violations == []


async def test_without_the_capability_nobody_is_asked(launch, model):
    editor = await launch(ask=False, stream=True)  # other experimental caps do not imply askUser
    model.add(tool_call("ask_user", {"question": "Which colour?"}), reply("I picked blue."))
    result = await execute(editor, "agentLsp.runTask", {"task": "style the button"})
    assert result["status"] == "done"
    assert editor.questions == []
    (answer,) = tool_results(model)
    assert answer.startswith("error: nobody can answer") and "best judgement" in answer
