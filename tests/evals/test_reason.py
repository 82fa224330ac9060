"""A failed row's reason is the line of the output that says what went wrong, not a banner."""

from __future__ import annotations

import subprocess

from agent_lsp.evals.runner import _last_line


def test_a_node_crash_gives_its_error_not_the_version_banner(tmp_path):
    (tmp_path / "a.js").write_text("const c = {};\nconsole.log(c.http.port);\n")
    out = subprocess.run(["node", "a.js"], cwd=tmp_path, capture_output=True, text=True).stderr
    assert out.strip().splitlines()[-1].startswith("Node.js v")
    assert _last_line(out) == "TypeError: Cannot read properties of undefined (reading 'port')"


def test_node_test_gives_the_fail_count_and_python_the_exception(tmp_path):
    (tmp_path / "t.test.js").write_text("require('node:test')('x', () => { throw new Error('no'); });\n")
    out = subprocess.run(["node", "--test"], cwd=tmp_path, capture_output=True, text=True).stdout
    assert _last_line(out) == "# fail 1"
    out = subprocess.run(["python3", "-c", "raise KeyError('port')"], capture_output=True, text=True).stderr
    assert _last_line(out) == "KeyError: 'port'"
    assert _last_line("") == ""
