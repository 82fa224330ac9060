"""Allow, deny or ask: the one place that decides what the rules say about a call.

Order: a deny rule matching anything that runs (after unwrapping) denies. A line that
cannot be judged, or where a denied program may hide (`$x` or `$(…)` as the program,
`eval "$x"`, `sh -c "$x"`, an unknown wrapper option), is asked even under `--yes` /
`autoApprove` — a line that does not parse always, the others when there are deny rules
to protect — and with no one to answer it is denied. Otherwise the line runs unasked
only when every simple command is plain and covered by an allow rule; a plain command
is literal words only: no `VAR=` prefix, no redirection but to /dev/null or between its
own streams, no expansion, no builtin that runs or evaluates code.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from typing import Any

from . import offer, plain
from .parse import parse
from .patterns import BashPattern, covers, deny_matches, deny_words, parse_rule
from .risky import interprets, is_code_env
from .unwrap import what_runs
from .words import NETWORK_PATHS, SimpleCommand, suspicious_chars, visible

MAX_NESTING = 4
# Builtins whose arguments become code, variables or shell state: never covered by a rule.
CODE_BUILTINS = {
    "eval": "runs its arguments as shell code", "exec": "replaces the shell with another program",
    "source": "runs a file's commands in this shell", ".": "runs a file's commands in this shell",
    "let": "evaluates arithmetic, which can run commands", "trap": "sets shell code to run later",
    "alias": "changes what command names mean", "unalias": "changes what command names mean",
    "enable": "loads or turns off builtins", "hash": "changes where command names lead",
    "declare": "declares or exports variables", "typeset": "declares or exports variables",
    "local": "declares or exports variables", "export": "declares or exports variables",
    "readonly": "declares or exports variables", "unset": "unsets variables or functions",
    "read": "sets variables from its input", "mapfile": "sets variables from its input",
    "readarray": "sets variables from its input", "getopts": "sets variables", "shopt": "changes the shell",
    "set": "changes the shell", "complete": "can run commands", "compgen": "can run commands",
    "bind": "can run commands", "fc": "re-runs commands", "coproc": "starts a coprocess",
}
# Builtins whose arguments name variables they set (`read PATH`, `export BASH_ENV=…`).
SETS_NAMES = frozenset({"read", "mapfile", "readarray", "getopts", "printf", "declare", "typeset", "local",
                        "export", "readonly"})
# Builtins with an option that assigns through a name bash evaluates (`a[$(cmd)]`).
ASSIGNING_OPTION = {"printf": "-v", "test": "-v", "[": "-v", "wait": "-p"}


@dataclass
class Verdict:
    """What the rules say about one call before anyone is asked."""

    denied_by: str | None = None  # the deny rule that matched
    unmatched: list[str] = field(default_factory=list)  # commands (or the tool) no allow rule covers
    reasons: list[str] = field(default_factory=list)  # why, one line each (constructs, options, redirections)
    unparsed: bool = False  # the line could not be judged: no rule can cover it, none is offered
    must_ask: str | None = None  # asked even under --yes / autoApprove, denied with no one to answer: why
    offers: list[str] = field(default_factory=list)  # what a "session"/"always" answer would remember

    @property
    def allowed(self) -> bool:
        return (self.denied_by is None and not self.unmatched and not self.reasons and not self.unparsed
                and self.must_ask is None)


def judge(tool: str, args: dict[str, Any], allow: list[str], deny: list[str], *,
          broken: str | None = None) -> Verdict:
    """The verdict on one gated call. `broken`: why the rules file could not be read (then
    its deny rules cannot be honoured, so everything is asked)."""
    if tool != "bash":
        return _judge_tool(tool, allow, deny, broken)
    line = str(args.get("command", ""))
    denies = [(r, p) for r in deny if (p := parse_rule(r)) is not None]
    verdict = Verdict(must_ask=broken)
    parsed = parse(line)
    if parsed.error is not None:
        verdict.unparsed = True
        verdict.reasons.append(f"the command cannot be judged: {parsed.error}")
        verdict.denied_by = _scan_denied(line, denies)
        if verdict.denied_by is None and (not parsed.doubt or denies):
            verdict.must_ask = verdict.must_ask or f"the command cannot be judged: {parsed.error}"
        return verdict
    scan = _DenyScan(denies)
    scan.assigned(parsed.assigned)
    for cmd in parsed.commands:
        scan.command(cmd, 0)
        if scan.denied:
            verdict.denied_by = scan.denied
            return verdict
    if scan.doubts and verdict.must_ask is None:
        verdict.must_ask = scan.doubts[0]  # a denied program may hide there
    allows = [p for r in allow if (p := parse_rule(r)) is not None]
    verdict.reasons += parsed.constructs
    if (odd := _control_char(line)) is not None:
        verdict.reasons.append(odd)
    if not parsed.commands:
        verdict.unmatched.append(line.strip())
        verdict.reasons.append("the line runs no simple command that a rule could cover")
        return verdict
    plain_ok = not parsed.constructs
    uncovered: list[list[str]] = []
    seen: set[tuple[str, ...]] = set()  # a 200 kB line repeats itself: judge each command once
    for cmd in parsed.commands:
        key = (cmd.text, *(r.text for r in cmd.redirects))
        if key in seen:
            continue
        seen.add(key)
        why = not_plain(cmd)
        values = cmd.values()
        if why or values is None:
            verdict.unmatched.append(cmd.text)
            verdict.reasons += why
            plain_ok = False
            continue
        ok, risky = _covered(allows, values)
        if not ok:
            verdict.unmatched.append(cmd.text)
            verdict.reasons += risky
            uncovered.append(values)
    if plain_ok and uncovered and verdict.must_ask is None:
        offers = [offer.offer_rule(v) for v in uncovered]
        verdict.offers = [] if None in offers else _dedupe(o for o in offers if o)
    return verdict


def _control_char(line: str) -> str | None:
    """Any control character but tab and newline, anywhere in the line: bash reads a carriage
    return or vertical tab as part of a word where the parser may see a gap (`ls\rtouch M`),
    so the verdict would be on words that are not what runs: ask."""
    for ch in line:
        if ch not in "\t\n" and unicodedata.category(ch) == "Cc":
            return f"the line contains the control character U+{ord(ch):04X}"
    return None


def not_plain(cmd: SimpleCommand) -> list[str]:
    """Why an allow rule cannot cover this simple command ([] when it is plain)."""
    why = [f"`{a}` sets a variable for the command" for a in cmd.assignments]
    why += [r.reason() for r in cmd.redirects if not r.harmless()]
    for n, w in enumerate(cmd.words):
        if w.value is None:
            why.append(f"`{w.text}` expands when the line runs")
        elif w.brace:
            why.append(f"`{w.text}` is brace expansion (it becomes several words)")
        elif (odd := suspicious_chars(w.value)) is not None:
            why.append(f"`{visible(w.text)}`: {odd}")
        elif n == 0 and not w.value.isascii():
            why.append(f"the program name `{w.value}` has non-ASCII characters (a look-alike?)")
        elif n == 0 and w.glob:
            why.append(f"the program `{w.text}` is a file-name pattern")
        elif any(p in w.value for p in NETWORK_PATHS):
            why.append(f"`{w.text}` names a network connection")
    if why:
        return why
    for inv in what_runs(cmd.words).invocations:
        name = inv.program
        if name in CODE_BUILTINS:
            why.append(f"`{name}` {CODE_BUILTINS[name]}")
        elif name in ASSIGNING_OPTION and ASSIGNING_OPTION[name] in inv.values()[1:]:
            why.append(f"`{name} {ASSIGNING_OPTION[name]}` assigns through a name bash evaluates")
    return why


def _covered(allows: list[BashPattern], values: list[str]) -> tuple[bool, list[str]]:
    reasons: list[str] = []
    for pattern in allows:
        ok, why = covers(pattern, values)
        if ok:
            return True, []
        reasons += why
    return False, reasons


class _DenyScan:
    """Walks what runs (wrappers unwrapped, `sh -c` code parsed) against the deny rules."""

    def __init__(self, denies: list[tuple[str, BashPattern]]) -> None:
        self.denies = denies
        self.denied: str | None = None
        self.doubts: list[str] = []  # where a denied program may hide
        self.seen: set[str] = set()  # commands already judged (their words are all in their text)

    def named_in_text(self, cmd: SimpleCommand) -> None:
        """Text that may become code — a here-document, a file the line writes, an interpreter's
        code — that names what a deny rule denies (`cat > x.sh <<EOF` … `rm -rf` …; `bash x.sh`)."""
        texts = [t for r in cmd.redirects if (t := r.fed_text())]
        if any(r.writes() for r in cmd.redirects):
            texts.append(cmd.text)
        values = cmd.values() or []
        if values and interprets(values):
            texts += values[1:]
        for rule, pattern in self.denies:
            words = deny_words(pattern)
            if words and any(all(_word_in(w, t) for w in words) for t in texts):
                shown = cmd.text if len(cmd.text) <= 60 else cmd.text[:57] + "..."
                self.doubts.append(f"`{shown}` writes or runs text that names what {rule} denies")
                return

    def assigned(self, names: list[str]) -> None:
        """Setting PATH, BASH_ENV, LD_PRELOAD, GIT_* ... changes what later programs run."""
        if self.denies:
            self.doubts += [f"setting `{n}` changes what later programs run" for n in names if is_code_env(n)]

    def command(self, cmd: SimpleCommand, depth: int) -> None:
        if not self.denies or cmd.text in self.seen:
            return
        self.seen.add(cmd.text)
        self.assigned([a.split("=", 1)[0].rstrip("+").split("[", 1)[0] for a in cmd.assignments])
        values = cmd.values() or [w.value if w.literal else None for w in cmd.words]
        if values and values[0] in SETS_NAMES:
            self.assigned([v.split("=", 1)[0] for v in values[1:] if v and not v.startswith("-")])
        runs = what_runs(cmd.words)
        for inv in runs.invocations:
            if inv.program is None:
                continue
            values = inv.values()
            for rule, pattern in self.denies:
                hit = deny_matches(pattern, values, inv.open_args)
                if hit == "yes":
                    self.denied = rule
                    return
                if hit == "maybe":
                    shown = " ".join(w.text for w in inv.words)
                    self.doubts.append(f"`{shown}` may be what {rule} denies (some of it is decided when it runs)")
        self.doubts += runs.hidden
        self.named_in_text(cmd)
        for code, via in runs.nested:
            if depth >= MAX_NESTING:
                self.doubts.append("shell code nests too deeply to judge")
                continue
            parsed = parse(code)
            if parsed.error is not None:
                self.denied = _scan_denied(code, self.denies)
                if self.denied:
                    return
                self.doubts.append(f"the code given to `{' '.join(via)}` cannot be judged: {parsed.error}")
                continue
            for inner in parsed.commands:
                self.command(inner, depth + 1)
                if self.denied:
                    return


def _word_in(word: str, text: str) -> bool:
    return re.search(rf"(?<![\w.-]){re.escape(word)}(?![\w.-])", text) is not None


def _scan_denied(line: str, denies: list[tuple[str, BashPattern]]) -> str | None:
    """A deny rule matched by anything that looks like a command in a line that cannot be judged."""
    if not denies:
        return None
    scan = _DenyScan(denies)
    for cmd in plain.scan_lenient(line):
        scan.command(cmd, MAX_NESTING - 1)
        if scan.denied:
            return scan.denied
    return None


def _judge_tool(tool: str, allow: list[str], deny: list[str], broken: str | None) -> Verdict:
    from .patterns import bash_body, word_eq

    def matches(rule: str) -> bool:
        return bash_body(rule) is None and word_eq(rule.strip().replace("*", "\0"), tool)

    hit = next((r for r in deny if matches(r)), None)
    if hit:
        return Verdict(denied_by=hit)
    covered = any(matches(r) for r in allow)
    return Verdict(unmatched=[] if covered else [tool], must_ask=broken, offers=[] if covered else [tool])


def _dedupe(items) -> list[str]:
    out: list[str] = []
    for item in items:
        if item not in out:
            out.append(item)
    return out
