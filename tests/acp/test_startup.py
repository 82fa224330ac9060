"""The ACP SDK is imported by the ACP face only: the language server and the terminal never pay for it."""

from __future__ import annotations

import subprocess
import sys


def test_the_server_and_the_terminal_do_not_import_the_sdk():
    code = (
        "import sys; import agent_lsp.cli, agent_lsp.server.main, agent_lsp.server.app; "
        "from agent_lsp.cli import build_parser; build_parser().parse_args(['acp', '--yes']); "
        "bad = [m for m in sys.modules if m == 'acp' or m.startswith(('acp.', 'agent_lsp.acp'))]; "
        "print(bad); sys.exit(1 if bad else 0)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stdout + out.stderr
