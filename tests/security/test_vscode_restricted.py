"""The VS Code extension declares the settings an untrusted workspace must not set.

VS Code ignores workspace values of `restrictedConfigurations` in Restricted Mode; every
`agentLsp` setting that starts a program, sends code elsewhere or widens what runs
unasked is listed, and the extension supports untrusted workspaces only in that limited way.
"""

from __future__ import annotations

import json
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "vscode-client" / "package.json"
MUST = {"agentLsp.baseUrl", "agentLsp.autoApprove", "agentLsp.webTools", "agentLsp.sandbox",
        "agentLsp.sandboxNetwork", "agentLsp.sandboxWritable", "agentLsp.server.command",
        "agentLsp.server.python", "agentLsp.server.importStrategy"}


def test_package_json_restricts_every_setting_that_runs_or_sends():
    pkg = json.loads(PACKAGE.read_text())
    untrusted = pkg["capabilities"]["untrustedWorkspaces"]
    assert untrusted["supported"] == "limited"
    restricted = set(untrusted["restrictedConfigurations"])
    assert MUST <= restricted, MUST - restricted
    sections = pkg["contributes"]["configuration"]
    props = {}
    for s in sections if isinstance(sections, list) else [sections]:
        props.update(s["properties"])
    assert restricted <= set(props), "every restricted name is a real setting"
    harmless = {"agentLsp.model", "agentLsp.maxSteps", "agentLsp.maxTaskTokens", "agentLsp.commandTimeout",
                "agentLsp.contextWindow", "agentLsp.review.mode", "agentLsp.trace.server"}
    assert set(props) - restricted <= harmless, "a new setting must be judged: restricted or harmless"
    assert "untrustedWorkspaces" in json.dumps(pkg["capabilities"])
