"""Permission rules: which gated calls run without asking, which never run, and what to ask.

A person asked about every `python3 -m pytest -q` stops reading the questions, so a
yes can be remembered as a *rule*: for this session (in memory) or for the project
(`.agent-lsp/permissions.json`, a file a team reviews and commits):

    {"allow": ["bash(python3 -m pytest*)", "mcp__git__git_status"], "deny": ["bash(rm -rf*)"]}

- `bash(PATTERN)` matches one simple command of a shell line; `*` matches any
  characters, a pattern without `*` the whole command. Any other rule is a tool name
  (MCP tools are `mcp__server__tool`), `*` allowed there too.
- A shell line is split into its simple commands with a real bash parser
  (tree-sitter-bash): `a && b | c; $(d)` is four commands, including those inside
  `$(...)`, backticks, subshells and process substitutions. It runs without asking only
  if *every* one matches an allow rule and none matches a deny rule. A line the parser
  cannot read is always asked about. Where tree-sitter is missing (the VS Code bundle),
  only plain lists of simple commands (`&&`, `||`, `;`, `|`, `&`) are split; a line with
  anything more (substitutions, subshells, redirections, compound commands) is asked.
- `deny` wins over everything, `autoApprove` / `--yes` included.
- The project file's `allow` rules came with `git clone`, so they count only once the
  person trusted the project (subject `permissions` in agent/trust.py); its `deny`
  rules always count.
"""

from __future__ import annotations

import functools
import json
import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import trust
from .fileio import write_text_atomic
from .host import Approval, ApprovalRequest

PERMISSIONS_NAME = "permissions.json"
SUBJECT = "permissions"
EDIT_TOOLS = frozenset({"edit_file", "write_file"})  # their preview is the question; no rules

# Commands whose second word picks what they do (`git status`, `cargo test`), and those
# whose `run X` does (`npm run build`): a rule keeps those words, drops the rest.
SUBCOMMAND_TOOLS = frozenset({
    "git", "npm", "pnpm", "yarn", "bun", "deno", "cargo", "go", "docker", "podman", "kubectl",
    "make", "pip", "pip3", "uv", "poetry", "npx", "dotnet", "mvn", "gradle", "./gradlew", "just",
    "gh", "hatch", "tox", "nox", "rustup", "brew", "apt", "apt-get", "systemctl", "terraform", "helm",
})
RUN_TOOLS = frozenset({"npm", "pnpm", "yarn", "bun", "uv", "poetry", "hatch", "cargo"})
PYTHONS = re.compile(r"^(python[0-9.]*|py|pypy[0-9.]*)$")


def permissions_path(root: Path) -> Path:
    from .settings_files import PROJECT_DIR

    return Path(root) / PROJECT_DIR / PERMISSIONS_NAME


@dataclass
class ProjectRules:
    allow: list[str] = field(default_factory=list)
    deny: list[str] = field(default_factory=list)
    note: str | None = None  # why the file was not (fully) used


def read_rules(root: Path | None) -> ProjectRules:
    """The project's rules; a broken file is a note and no rules (deny rules in it cannot be honoured then)."""
    if root is None:
        return ProjectRules()
    from .settings_files import read_json_object

    path = permissions_path(root)
    data, note = read_json_object(path)
    rules = ProjectRules(note=note)
    for key in ("allow", "deny"):
        value = data.get(key, [])
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            rules.note = f"ignored {key} in {path}: it must be a list of strings"
            continue
        setattr(rules, key, [v.strip() for v in value if v.strip()])
    return rules


def trust_subject(rules: ProjectRules) -> dict[str, str]:
    """What trusting the project covers of this file: its allow rules (deny needs no trust)."""
    return {SUBJECT: trust.fingerprint(rules.allow)} if rules.allow else {}


def allow_trusted(root: Path, rules: ProjectRules) -> bool:
    return not rules.allow or trust.is_trusted(root, SUBJECT, trust.fingerprint(rules.allow))


# ------------------------------------------------------------------ splitting a shell line


@functools.cache
def _parser():
    """The bash parser; None without tree-sitter (the VS Code extension's bundled server
    carries no platform binaries): then only plain lists of simple commands are split
    (`_split_plain`) and everything else is asked."""
    try:
        import tree_sitter_bash
        from tree_sitter import Language, Parser
    except ImportError:
        return None
    return Parser(Language(tree_sitter_bash.language()))


def split_command(line: str) -> list[str] | None:
    """Every simple command of a bash line, outermost first; None when the line does not parse."""
    parser = _parser()
    if parser is None:
        return _split_plain(line)
    tree = parser.parse(line.encode("utf-8"))
    if tree.root_node.has_error:
        return None
    out: list[str] = []

    def walk(node) -> None:
        if node.type == "command":  # function bodies, loops and substitutions are walked into too
            out.append(_command_text(node))
        for child in node.children:
            walk(child)

    walk(tree.root_node)
    return out


# What the plain splitter will not judge: substitutions, subshells, groups, redirections,
# here-documents, variable braces and more than one line. Such a line is asked about.
_NOT_PLAIN = re.compile(r"[`(){}<>\n\\]|\$\(")
_OPERATORS = frozenset({"&&", "||", ";", "|", "&", "|&"})
_KEYWORDS = frozenset({"if", "then", "else", "elif", "fi", "for", "while", "until", "do", "done",
                       "case", "esac", "function", "select", "time", "coproc", "!", "[[", "]]"})


def _split_plain(line: str) -> list[str] | None:
    """Without a bash parser: `a && b | c; d` as its simple commands, or None (ask) for
    anything richer than words joined by list and pipe operators."""
    if _NOT_PLAIN.search(line):
        return None
    lexer = shlex.shlex(line, posix=True, punctuation_chars=";&|")
    lexer.whitespace_split = True
    try:
        tokens = list(lexer)
    except ValueError:  # an unclosed quote
        return None
    out: list[str] = []
    words: list[str] = []
    for token in tokens + [";"]:  # the ";" closes the last command
        if set(token) <= set(";&|"):  # an operator (a run of them is shlex's doing)
            if token not in _OPERATORS:
                return None  # `;;`, `&&&` and the like
            if not words:
                if token == ";" and out:
                    continue  # a trailing ";" (or the closing one)
                return None  # an operator with no command before it
            if words[0] in _KEYWORDS or "=" in words[0]:
                return None  # compound commands and assignments: left to a person
            out.append(shlex.join(words))
            words = []
            continue
        words.append(token)
    return out or None


def _command_text(node) -> str:
    """A simple command as one line: its words joined by single spaces, as written."""
    return " ".join(c.text.decode("utf-8", "replace") for c in node.children if c.type != "comment")


def _words(command: str) -> list[str]:
    try:
        return shlex.split(command)
    except ValueError:
        return command.split()


def suggest_rule(command: str) -> str:
    """The rule a person would generalise `command` to: `npm test`, `python3 -m pytest`, `git status`."""
    words = _words(command)
    while words and re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", words[0]):
        words.pop(0)  # FOO=1 cmd: the rule is about cmd
    if not words:
        return f"bash({command.strip()})"
    name = words[0]
    keep = [name]
    rest = words[1:]
    if PYTHONS.match(Path(name).name) and len(rest) >= 2 and rest[0] == "-m":
        keep += rest[:2]
    elif Path(name).name in SUBCOMMAND_TOOLS or name in SUBCOMMAND_TOOLS:
        if rest and _plain_word(rest[0]):
            keep.append(rest[0])
            if Path(name).name in RUN_TOOLS and rest[0] in ("run", "exec", "x") and len(rest) > 1 and _plain_word(rest[1]):
                keep.append(rest[1])
    return f"bash({' '.join(keep)}*)"


def _plain_word(word: str) -> bool:
    return bool(re.match(r"^[A-Za-z0-9][A-Za-z0-9:_.-]*$", word)) and "/" not in word


# ------------------------------------------------------------------ matching


def _pattern_matches(pattern: str, text: str) -> bool:
    """`*` matches any characters; nothing else is special (a command is full of `?` and `[`)."""
    if "*" not in pattern:
        return pattern == text
    return re.fullmatch(".*".join(re.escape(p) for p in pattern.split("*")), text, re.DOTALL) is not None


def _bash_pattern(rule: str) -> str | None:
    rule = rule.strip()
    if rule.startswith("bash(") and rule.endswith(")"):
        return rule[5:-1].strip()
    return None


def command_matches(rule: str, command: str) -> bool:
    pattern = _bash_pattern(rule)
    if pattern is None:
        return False
    if _pattern_matches(pattern, command):
        return True
    stripped = re.sub(r"^(?:[A-Za-z_][A-Za-z0-9_]*=\S*\s+)+", "", command)  # FOO=1 rm -rf x is still rm -rf x
    return stripped != command and _pattern_matches(pattern, stripped)


def tool_matches(rule: str, tool: str) -> bool:
    return _bash_pattern(rule) is None and _pattern_matches(rule.strip(), tool)


@dataclass
class Verdict:
    """What the rules say about one call before anyone is asked."""

    denied_by: str | None = None  # the deny rule that matched
    unmatched: list[str] = field(default_factory=list)  # segments (or the tool) no allow rule covers
    unparsed: bool = False  # the shell line did not parse: ask, and suggest no rule

    @property
    def allowed(self) -> bool:
        return self.denied_by is None and not self.unmatched and not self.unparsed


def judge(tool: str, args: dict[str, Any], allow: list[str], deny: list[str]) -> Verdict:
    if tool != "bash":
        hit = next((r for r in deny if tool_matches(r, tool)), None)
        if hit:
            return Verdict(denied_by=hit)
        return Verdict(unmatched=[] if any(tool_matches(r, tool) for r in allow) else [tool])
    line = str(args.get("command", ""))
    segments = split_command(line)
    if segments is None:
        hit = next((r for r in deny if _pattern_matches(_bash_pattern(r) or "", line.strip())
                    or any(command_matches(r, part.strip()) for part in re.split(r"[;&|()`\n]+|\$\(", line))), None)
        return Verdict(denied_by=hit, unparsed=True)
    for seg in segments:
        hit = next((r for r in deny if command_matches(r, seg)), None)
        if hit:
            return Verdict(denied_by=hit)
    return Verdict(unmatched=[s for s in segments if not any(command_matches(r, s) for r in allow)])


# ------------------------------------------------------------------ the gate


class Gate:
    """The rules in force for one session: the project's (re-read per call) plus this session's yeses."""

    def __init__(self) -> None:
        self.session_allow: list[str] = []

    async def check(self, ctx: Any, tool: str, args: dict[str, Any], preview: str) -> str | None:
        """None when the call may run; otherwise the text the model gets instead of a result."""
        root = ctx.workspace.root
        rules = read_rules(root)
        allow = list(self.session_allow) + (rules.allow if allow_trusted(root, rules) else [])
        verdict = judge(tool, args, allow, rules.deny)
        if verdict.denied_by:
            return (f"error: denied by the rule {verdict.denied_by!r} in {permissions_path(root)}; "
                    "this action is not allowed in this project, do it another way or ask the user")
        if ctx.settings.auto_approve or verdict.allowed:
            return None
        if tool in EDIT_TOOLS:
            return None if await ctx.host.confirm(tool, args, preview) else DENIED
        rules_offered = [] if verdict.unparsed else _dedupe(
            suggest_rule(s) if tool == "bash" else tool for s in verdict.unmatched)
        scrub = ctx.settings.scrub  # a key pasted into a command must not reach the question
        request = ApprovalRequest(tool, args, preview, [scrub(s) for s in verdict.unmatched],
                                  [scrub(r) for r in rules_offered], verdict.unparsed)
        answer = await ctx.host.approve(request)
        if answer is Approval.DENY:
            return DENIED
        if answer in (Approval.SESSION, Approval.ALWAYS):
            self.session_allow += [r for r in rules_offered if r not in self.session_allow]
        if answer is Approval.ALWAYS and rules_offered:
            note = add_project_rules(root, rules_offered)
            if note:
                ctx.host.emit(_status(note))
        return None


DENIED = "user denied this action"


def _status(text: str):
    from .host import Event

    return Event("status", text)


def _dedupe(items) -> list[str]:
    out: list[str] = []
    for item in items:
        if item not in out:
            out.append(item)
    return out


def add_project_rules(root: Path, new_rules: list[str]) -> str | None:
    """Append `new_rules` to the project's allow list; keep it trusted when it was (the person wrote them).

    Returns a note for the person when the rules were written but the rest of the file
    is still waiting for trust (so the new rules count only for this session for now).
    """
    path = permissions_path(root)
    from .settings_files import read_json_object

    data, note = read_json_object(path)
    if note:
        return f"could not add {', '.join(new_rules)} to {path}: {note}"
    before = read_rules(root)
    was_trusted = allow_trusted(root, before)
    allow = data.get("allow") if isinstance(data.get("allow"), list) else []
    allow = list(allow) + [r for r in new_rules if r not in allow]
    data["allow"] = allow
    data.setdefault("deny", [])
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_text_atomic(path, json.dumps(data, indent=2, ensure_ascii=False) + "\n")
    except OSError as e:
        return f"could not write {path}: {e}"
    if was_trusted:
        trust.grant(root, trust_subject(read_rules(root)))
        return None
    return (f"added {', '.join(new_rules)} to {path}, but its other allow rules are not trusted yet, so "
            f"they count for this session only; {trust.how_to_trust(root)}")


def describe(request: ApprovalRequest) -> str:
    """The question's text: the call, and the segments no rule covers."""
    what = "run" if request.tool == "bash" else f"use {request.tool}:"
    return f"agent-lsp wants to {what}\n{request.preview}{uncovered_note(request)}"


def uncovered_note(request: ApprovalRequest) -> str:
    """'' or a line naming what no rule covers (only worth saying for a compound command)."""
    if request.unparsed:
        return "\n(the command could not be parsed, so no rule can cover it)"
    if request.tool == "bash" and request.unmatched and request.unmatched != [request.preview.strip()]:
        return "\nnot covered by a rule: " + "; ".join(f"`{s}`" for s in request.unmatched)
    return ""


def rule_label(rules: list[str]) -> str:
    """`npm test`, `rm` -- the rules as a person reads them in a button."""
    return ", ".join(f"`{_bash_pattern(r).rstrip('*') if _bash_pattern(r) is not None else r}`" for r in rules)
