"""The inline review in a real editor: Neovim 0.7 with a stock client, no snippet.

Neovim 0.7 advertises no changeAnnotationSupport and, without the documented
config's handler, would apply an edit without asking. So the server holds the edit
back as agent-lsp diagnostics; the person sees them in the buffer and picks
"Accept agent edit" (or "Reject agent edit") from Neovim's own code-action menu.
"""

from __future__ import annotations

import pytest

from tests.editors.conftest import CALC
from tests.editors.harness import describe, prompts, require, run_nvim, told
from tests.scripted_model import reply, tool_call

STOCK_07 = """-- a person's own init.lua: a stock client, none of nvim-client/
vim.api.nvim_create_autocmd('FileType', { pattern = 'python', callback = function(args)
  local id = vim.lsp.start_client({ name = 'agent-lsp', cmd = { 'agent-lsp', 'serve' },
                                    root_dir = vim.fn.getcwd() })
  vim.lsp.buf_attach_client(args.buf, id)
end })
vim.keymap.set('n', '<leader>aa', vim.lsp.buf.code_action)
"""

LINT = {"lnum": 1, "col": 11, "end_col": 16, "message": "add subtracts", "source": "lint", "severity": 2}
FIXED_ADD = CALC.replace("return a - b", "return a + b")


@pytest.mark.parametrize("answer", ["Accept agent edit", "Reject agent edit"])
def test_stock_nvim07_accepts_or_rejects_from_the_code_action_menu(answer, project, home, model):
    editor = require("nvim07")
    model.add(
        tool_call("edit_file", {"path": "calc.py", "old": "return a - b", "new": "return a + b"}),
        reply("All done." if answer.startswith("Accept") else "Left it."),
    )
    steps = [
        {"step": "attach"},
        {"step": "diagnostics", "items": [LINT]},
        {"step": "cursor", "line": 2, "col": 11},
        {"step": "keys", "keys": "\\aa"},  # the code-action menu: Fix with agent (0.7 sends the linter's too)
        {"step": "wait_diagnostic", "source": "agent-lsp", "name": "pending"},
        {"step": "snapshot", "name": "while_pending"},
        {"step": "keys", "keys": "\\aa"},  # the menu again, now with Accept / Reject first
        {"step": "wait_no_diagnostic", "source": "agent-lsp"},
        {"step": "wait_message", "text": "agent: All done" if answer.startswith("Accept") else "agent: Left it"},
        {"step": "snapshot", "name": "after_task"},
    ]
    s = run_nvim(editor, None, project / "calc.py", {"steps": steps, "pick": ["Fix with agent: add subtracts", answer]},
                 home, model.base_url, init_lua=STOCK_07)
    r = s.result
    assert not r.get("errors") and not r.get("timed_out"), describe(s)
    # the pending edit was shown in the buffer, with the new text, before anything changed
    assert "return a + b" in r["pending"]["message"] and r["pending"]["lnum"] == 1, describe(s)
    assert r["while_pending"]["text"] == CALC, describe(s)
    menus = prompts(r, "list")
    assert menus[1]["items"][:2] == ["Accept agent edit", "Reject agent edit"], describe(s)
    assert not any(i.startswith("Fix with agent: agent edit") for i in menus[1]["items"]), describe(s)
    assert prompts(r, "confirm") == []  # nothing asked blind
    if answer.startswith("Accept"):
        assert r["after_task"]["text"] == FIXED_ADD, describe(s)
        assert (project / "calc.py").read_text() == FIXED_ADD, describe(s)
        assert not told(model, "rejected") and not told(model, "stale"), describe(s)
    else:
        assert r["after_task"]["text"] == CALC and r["after_task"]["modified"] is False, describe(s)
        assert (project / "calc.py").read_bytes() == CALC.encode()
        assert told(model, "rejected"), describe(s)
    assert model.violations == []
