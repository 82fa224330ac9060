"""Approvals that remember, per shell segment: rules in .agent-lsp/permissions.json, judged by agent/cmdline.

The loop runs against the scripted model; the Host answers approvals from a script and
records each question, so a test can tell "ran unasked" from "asked and allowed".
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any, Iterable

import pytest

from agent_lsp.agent import facehost
from agent_lsp.agent.policy import permissions, settings_files, trust
from agent_lsp.agent.host import Approval, ApprovalRequest
from agent_lsp.agent.policy.gate import DENIED
from agent_lsp.agent.cmdline import parse as cmdline_parse
from agent_lsp.agent.cmdline.offer import offer_rule
from agent_lsp.agent.cmdline.parse import parse
from tests.helpers import RecordingHost, last_tool_results, make_session, no_violations  # noqa: F401
from tests.scripted_model import reply, tool_call


class ApprovingHost(RecordingHost):
    """Answers each approval with the next of `answers` (then Deny) and keeps the requests."""

    def __init__(self, answers: Iterable[Approval] = (), **kw: Any) -> None:
        super().__init__(**kw)
        self.answers = list(answers)
        self.requests: list[ApprovalRequest] = []

    async def approve(self, request: ApprovalRequest) -> Approval:
        self.requests.append(request)
        return self.answers.pop(0) if self.answers else Approval.DENY


def write_rules(root: Path, allow: list[str] = (), deny: list[str] = (), *, trusted: bool = True) -> None:
    path = permissions.permissions_path(root)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"allow": list(allow), "deny": list(deny)}))
    if trusted:
        trust.grant(root, settings_files.project_subjects(root))


async def run(workspace: Path, model, host, *commands: str, **settings: Any) -> list[str]:
    """One task that runs each command; returns the tool results the model saw."""
    for c in commands:
        model.add(tool_call("bash", {"command": c}))
    model.add(reply("done"))
    session = make_session(workspace, model, host, **settings)
    try:
        await session.run_turn("run them")
    finally:
        await session.client.aclose()
    results = []
    for r in model.requests[-len(commands):]:
        results += last_tool_results(r)
    return results


# ------------------------------------------------------------------ the split


def split_command(line: str) -> list[str] | None:
    """The simple commands the judge sees in `line`, outermost first; None when it cannot judge the line."""
    parsed = parse(line)
    return None if parsed.error else [c.text for c in parsed.commands]


def test_split_finds_every_simple_command():
    assert split_command("cd a && npm test | tee log; rm -rf x $(whoami)") == \
        ["cd a", "npm test", "tee log", "rm -rf x $(whoami)", "whoami"]
    assert split_command("echo `id`; (make; ls) && [[ -f x ]] && echo $(( 1 + 2 ))") == \
        ["echo `id`", "id", "make", "ls", "echo $(( 1 + 2 ))"]
    assert split_command('echo "unterminated') is None


@pytest.mark.parametrize("command,rule", [
    ("python3 -m pytest -q", "bash(python3 -m pytest*)"),
    ("npm test", "bash(npm test*)"),
    ("npm run build -- --watch", "bash(npm run build*)"),
    ("git status --short", "bash(git status*)"),
    ("ls -la src", "bash(ls*)"),
])
def test_a_rule_is_the_prefix_a_person_would_generalise(command, rule):
    assert offer_rule(parse(command).commands[0].values()) == rule


# ------------------------------------------------------------------ the gate in the loop


async def test_an_allowed_command_runs_unasked(workspace, model, tmp_path, monkeypatch):
    write_rules(workspace, allow=["bash(python3 -m pytest*)"])
    (workspace / "test_one.py").write_text("def test_one():\n    assert True\n")
    bin_dir = tmp_path / "bin"  # `python3` is the interpreter running these tests (it has pytest)
    bin_dir.mkdir()
    (bin_dir / "python3").symlink_to(sys.executable)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    host = ApprovingHost()
    [out] = await run(workspace, model, host, "python3 -m pytest -q -p no:cacheprovider", command_timeout=120)
    assert host.requests == [] and host.confirms == []
    assert "1 passed" in out and out.endswith("[exit 0]")


async def test_a_compound_command_asks_naming_the_uncovered_segment(workspace, model):
    write_rules(workspace, allow=["bash(python3 -m pytest*)"])
    (workspace / "build").mkdir()
    host = ApprovingHost([Approval.DENY])
    [out] = await run(workspace, model, host, "python3 -m pytest -q && rm -rf build")
    assert out == DENIED and (workspace / "build").is_dir()
    [asked] = host.requests
    assert asked.unmatched == ["rm -rf build"] and asked.rules == ["bash(rm*)"]
    assert "not covered by a rule: `rm -rf build`" in facehost.describe(asked)


async def test_a_command_substitution_is_asked_about_with_the_command_around_it(workspace, model):
    write_rules(workspace, allow=["bash(echo*)"])
    host = ApprovingHost([Approval.ONCE])
    [out] = await run(workspace, model, host, "echo $(printf curl-x)")
    assert out.startswith("curl-x")
    [asked] = host.requests  # `echo $(…)` is not a plain command: no rule covers it, none is offered
    assert asked.unmatched == ["echo $(printf curl-x)", "printf curl-x"] and asked.rules == []
    assert "`$(printf curl-x)` expands when the line runs" in facehost.describe(asked)


async def test_an_unparsable_line_asks_and_offers_no_rule(workspace, model):
    write_rules(workspace, allow=["bash(echo*)"])
    host = ApprovingHost([Approval.DENY])
    await run(workspace, model, host, 'echo "open quote')
    [asked] = host.requests
    assert asked.unparsed and asked.rules == []


async def test_deny_wins_even_under_auto_approve(workspace, model):
    write_rules(workspace, allow=["bash(rm*)"], deny=["bash(rm -rf*)"])
    (workspace / "build").mkdir()
    host = ApprovingHost()
    [out] = await run(workspace, model, host, "true && cd . && rm -rf build", auto_approve=True)
    assert out.startswith("error: denied by the rule 'bash(rm -rf*)'")
    assert (workspace / "build").is_dir() and host.requests == []


async def test_an_untrusted_projects_allow_rules_do_not_count_its_deny_rules_do(workspace, model):
    write_rules(workspace, allow=["bash(touch*)"], deny=["bash(rm*)"], trusted=False)
    host = ApprovingHost([Approval.DENY])
    outs = await run(workspace, model, host, "touch made.txt", "rm -f x")
    assert outs[0] == DENIED and not (workspace / "made.txt").exists()
    assert outs[1].startswith("error: denied by the rule 'bash(rm*)'")
    assert [r.unmatched for r in host.requests] == [["touch made.txt"]]


async def test_session_remembers_for_the_session_only(workspace, model):
    host = ApprovingHost([Approval.SESSION])
    outs = await run(workspace, model, host, "touch a.txt", "touch b.txt -c")
    assert outs == ["[exit 0]", "[exit 0]"] and len(host.requests) == 1
    assert not permissions.permissions_path(workspace).exists()


async def test_always_writes_the_rule_and_the_next_task_uses_it(workspace, model):
    host = ApprovingHost([Approval.ALWAYS])
    await run(workspace, model, host, "touch a.txt")
    data = json.loads(permissions.permissions_path(workspace).read_text())
    assert data == {"allow": ["bash(touch*)"], "deny": []}
    assert settings_files.read(workspace).trusted(), "the person wrote it: it stays trusted"
    fresh = ApprovingHost()  # a new session: nothing remembered in memory
    [out] = await run(workspace, model, fresh, "touch b.txt")
    assert out == "[exit 0]" and fresh.requests == [] and (workspace / "b.txt").exists()


async def test_a_default_host_falls_back_to_confirm(workspace, model):
    """A Host that only knows confirm (e.g. a new face) still gets asked, once or deny."""
    host = RecordingHost(confirm=[False])
    [out] = await run(workspace, model, host, "touch a.txt")
    assert out == DENIED and host.confirms[0][0] == "bash"


def test_trust_covers_the_allow_rules(workspace):
    write_rules(workspace, allow=["bash(make*)"], trusted=False)
    files = settings_files.read(workspace)
    assert not files.trusted() and "bash(make*)" in files.trust_question()
    trust.grant(workspace, settings_files.project_subjects(workspace))
    assert settings_files.read(workspace).trusted()
    write_rules(workspace, allow=["bash(make*)", "bash(curl*)"], trusted=False)
    assert not settings_files.read(workspace).trusted(), "a changed file is asked about again"


# ------------------------------------------------------------------ the terminal's question


def test_terminal_asks_yes_session_always_no_and_always_is_remembered(workspace, model):
    from tests.test_cli import agent

    model.add(tool_call("bash", {"command": "touch a.txt && ls"}), reply("ok"))
    r = agent(["run", "make a"], cwd=workspace, base_url=model.base_url, stdin="a\n")
    assert r.returncode == 0, r.stderr
    assert "allow? [y]es / [s]ession / [a]lways / [N]o" in r.stderr
    assert "not covered by a rule: `touch a.txt`; `ls`" in r.stderr
    assert "[tokens: " in r.stderr, "the trace shows the tokens used so far"
    assert json.loads(permissions.permissions_path(workspace).read_text())["allow"] == ["bash(touch*)", "bash(ls*)"]
    model.add(tool_call("bash", {"command": "touch b.txt"}), reply("ok"))
    r = agent(["run", "make b"], cwd=workspace, base_url=model.base_url, stdin="")
    assert r.returncode == 0 and "allow?" not in r.stderr and "trust" not in r.stderr, r.stderr
    assert (workspace / "b.txt").exists()


def test_agent_lsp_trust_grants_the_allow_rules(workspace, model):
    from tests.test_cli import agent

    write_rules(workspace, allow=["bash(touch*)"], trusted=False)
    model.add(tool_call("bash", {"command": "touch a.txt"}), reply("ok"))
    # not trusted: asked about trust first (declined), then about the command (declined)
    r = agent(["run", "make a"], cwd=workspace, base_url=model.base_url, stdin="n\nn\n")
    assert "lets commands run without asking" in r.stderr and "bash(touch*)" in r.stderr
    assert not (workspace / "a.txt").exists()
    r = agent(["trust", str(workspace)], cwd=workspace, base_url=model.base_url)
    assert r.returncode == 0 and "(permissions)" in r.stdout, r.stdout + r.stderr
    model.add(tool_call("bash", {"command": "touch a.txt"}), reply("ok"))
    r = agent(["run", "make a"], cwd=workspace, base_url=model.base_url, stdin="")
    assert r.returncode == 0 and "allow?" not in r.stderr and (workspace / "a.txt").exists(), r.stderr


def test_chat_session_answer_covers_the_rest_of_the_chat_only(workspace, model):
    from tests.test_cli import agent

    model.add(tool_call("bash", {"command": "git --version"}), reply("one"),
              tool_call("bash", {"command": "git --version && git --version --build-options"}), reply("two"))
    r = agent(["chat"], cwd=workspace, base_url=model.base_url, stdin="first\ns\nsecond\n")
    assert r.returncode == 0, r.stderr
    assert r.stderr.count("allow? [y]es / [s]ession / [a]lways / [N]o") == 1, r.stderr
    assert "allow `git --version` for this session" in r.stderr
    assert not permissions.permissions_path(workspace).exists()


# ------------------------------------------------------------ without tree-sitter (the bundled VS Code server)


@pytest.fixture
def no_tree_sitter(monkeypatch):
    """The .vsix's server carries no platform binaries: no bash parser."""
    monkeypatch.setattr(cmdline_parse, "_parser", lambda: None)


@pytest.mark.parametrize("line, want", [
    ("python3 -m pytest -q && rm -rf build", ["python3 -m pytest -q", "rm -rf build"]),
    ("grep -r foo . | head -5; git status", ["grep -r foo .", "head -5", "git status"]),
    ("npm test;", ["npm test"]),
    ("echo 'a && b'", ["echo 'a && b'"]),
    ("ls > out.txt", ["ls > out.txt"]), ("a\nb", ["a", "b"]), ("FOO=1 make", ["FOO=1 make"]),
    ("echo ok#; touch M", ["echo ok#", "touch M"]),
    ("echo $(curl x)", None), ("echo `id`", None), ("(cd x && make)", None),
    ("cat <<EOF", None), ("if true; then x; fi", None),
    ("echo 'open", None), ("; ls", None), ("a && && b", None), ("x ;; y", None),
])
def test_without_a_parser_only_plain_lines_are_split(no_tree_sitter, line, want):
    assert split_command(line) == want


async def test_without_a_parser_rules_still_apply_to_plain_lines(no_tree_sitter, workspace, model):
    write_rules(workspace, allow=["bash(echo*)"], deny=["bash(rm -rf*)"])
    (workspace / "build").mkdir()
    host = ApprovingHost([Approval.DENY])
    outs = await run(workspace, model, host, "echo one && echo two")
    assert outs[0].startswith("one\ntwo") and host.requests == []  # every segment allowed: not asked
    [out] = await run(workspace, model, host, "echo hi && rm -rf build", auto_approve=True)
    assert out.startswith("error: denied by the rule 'bash(rm -rf*)'")  # a deny rule still blocks
    assert (workspace / "build").is_dir()
    host = ApprovingHost([Approval.DENY])
    await run(workspace, model, host, "echo $(printf curl-x)")
    [asked] = host.requests  # what it cannot split is asked
    assert asked.unparsed and asked.rules == []
