"""Settings: initializationOptions, didChangeConfiguration (empty, partial), workspace/configuration, bad values."""

from __future__ import annotations

from lsprotocol import types

from tests.lsp.conftest import wait_until
from tests.lsp_helpers import code_actions, execute, rng
from tests.scripted_model import reply

SECRET = "sk-test-0123456789abcdef"


async def ask(editor, model, answer: str = "ok") -> dict:
    """Run a one-step task; return the request the model received for it."""
    model.add(reply(answer))
    result = await execute(editor, "agentLsp.runTask", {"task": "hello"})
    assert result["status"] == "done", result
    return model.requests[-1]


def change_configuration(editor, settings) -> None:
    editor.client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=settings))


async def settle(editor) -> None:
    """A round trip: notifications sent before it have been handled by the server."""
    await code_actions(editor, "file:///nowhere.py", rng(0, 0, 0, 0), [])


def warnings(editor) -> list[str]:
    return [m.message for m in editor.client.log_messages if m.type == types.MessageType.Warning]


async def test_initialization_options(launch, model):
    editor = await launch(init_options={"model": "m-init", "stream": False, "apiKey": SECRET})
    request = await ask(editor, model)
    assert request["model"] == "m-init"
    assert request.get("stream") in (False, None)
    assert model.headers[-1]["authorization"] == f"Bearer {SECRET}"
    # the key is never shown or logged
    seen = [m.message for m in editor.client.log_messages] + [m.message for m in editor.client.messages]
    assert seen and not any(SECRET in m for m in seen)
    assert any("key set" in m for m in seen)


async def test_did_change_configuration(launch, model):
    """eglot sends {settings: {}} right after connecting: a payload names what it changes, nothing else."""
    editor = await launch(client_name="emacs", init_options={"model": "m1", "maxSteps": 3})
    for empty in ({}, {"agentLsp": {}}, None):
        change_configuration(editor, empty)
    await settle(editor)
    assert (await ask(editor, model))["model"] == "m1"
    assert warnings(editor) == []

    change_configuration(editor, {"agentLsp": {"model": "m2"}})
    await settle(editor)
    assert (await ask(editor, model))["model"] == "m2"
    # a bare object of keys is accepted too, and a partial payload keeps the rest
    change_configuration(editor, {"maxSteps": 7})
    await settle(editor)
    assert (await ask(editor, model))["model"] == "m2"


async def test_workspace_configuration_is_pulled(launch, model):
    editor = await launch(init_options={"model": "m-init"})
    pulls: list[tuple[str | None, object]] = []
    answer = editor.client.get_configuration

    def recording(*, section=None, scope_uri=None):
        value = answer(section=section, scope_uri=scope_uri)
        pulls.append((section, value))
        return value

    editor.client.get_configuration = recording
    editor.client.set_configuration({"model": "m-pulled"}, section="agentLsp")
    change_configuration(editor, {})  # VS Code style: "something changed, ask me"
    await wait_until(lambda: ("agentLsp", {"model": "m-pulled"}) in pulls, what="the server to pull the section")
    await settle(editor)
    assert {section for section, _ in pulls} == {"agentLsp"}
    assert (await ask(editor, model))["model"] == "m-pulled"


async def test_wrong_types_are_ignored_with_a_warning(launch, model):
    editor = await launch(init_options={"model": 5, "maxSteps": "many", "autoApprove": "perhaps", "detachCommands": 3})
    await wait_until(lambda: len(warnings(editor)) >= 4, what="one warning per bad value")
    text = "\n".join(warnings(editor))
    for key in ("model", "maxSteps", "autoApprove", "detachCommands"):
        assert f"ignored setting {key}=" in text
    change_configuration(editor, {"agentLsp": {"commandTimeout": "soon", "model": "m2"}})
    await wait_until(lambda: "commandTimeout" in "\n".join(warnings(editor)), what="the warning")
    request = await ask(editor, model)
    assert request["model"] == "m2"  # the good value in the same payload still applies
    assert editor.message_requests == []  # autoApprove stayed off; nothing asked in a text-only task
