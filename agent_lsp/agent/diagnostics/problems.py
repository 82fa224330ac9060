"""What an edit broke: the problems reported in a file after an edit that were not there before.

Two sources can tell: the editor (the Host's `diagnostics`, answered through
`agentLsp/diagnostics` with every server's and linter's problems the person sees) and
the language servers the agent runs itself (`diagnosticServers`, agent_lsp/lspclient/).
A baseline is asked for before the edit is proposed, the same question again after it
is accepted. Editors publish asynchronously, so the second answer is asked for until it
settles: two equal answers in a row that differ from the baseline, or the same answer
for a quiet period (QUIET, longer once this editor was seen to answer an edit later
than that); our own servers answer for the exact text we sent, so their first answer is final. All of it is bounded by `diagnosticsTimeout`.

"New" ignores what only moved: a problem matches an old one with the same source, code
and message whose line, shifted by the edit's line delta, is where it is now (a problem
inside the edited lines matches one anywhere in the new lines). When no source answers,
the tool result says nothing about problems at all: silence is not "no problems".
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..workspace import linediff
from ..host import FileChange

MAX_SHOWN = 20
POLL = 0.1  # seconds between two questions to the editor while its answers settle
QUIET = 0.6  # an answer equal to the baseline counts as settled after this long without change
SEVERITY = {1: "error", 2: "warning", 3: "info", 4: "hint"}


@dataclass(frozen=True)
class Problem:
    line: int  # 0-based, as in LSP
    severity: int  # 1 error .. 4 hint (a missing severity counts as an error, as editors show it)
    source: str
    code: str
    message: str

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.source, self.code, self.message)

    def describe(self) -> str:
        label = " ".join(x for x in (self.source, self.code) if x)
        return f"line {self.line + 1}: {SEVERITY.get(self.severity, 'error')} {f'[{label}] ' if label else ''}{self.message}"


def problem(diag: Any) -> Problem | None:
    """An LSP Diagnostic (a dict, as JSON spells it) as a Problem; None when it has no usable shape."""
    if not isinstance(diag, dict) or not isinstance(diag.get("message"), str):
        return None
    start = ((diag.get("range") or {}).get("start") or {}) if isinstance(diag.get("range"), dict) else {}
    line = start.get("line") if isinstance(start, dict) else None
    if not isinstance(line, int) or isinstance(line, bool) or line < 0:
        return None
    sev = diag.get("severity")
    sev = sev if isinstance(sev, int) and 1 <= sev <= 4 else 1
    code = diag.get("code")
    if isinstance(code, dict):  # VS Code: {value, target}
        code = code.get("value")
    return Problem(line, sev, str(diag.get("source") or ""), "" if code is None else str(code),
                   " ".join(diag["message"].split()))


def problems(diags: list[Any] | None) -> list[Problem] | None:
    if diags is None:
        return None
    return [p for p in (problem(d) for d in diags) if p is not None]


# ---------------------------------------------------------------- where old lines went


class LineMap:
    """Where each line of the text before an edit is in the text after it."""

    def __init__(self, blocks: list[tuple[int, int, int, int, bool]]) -> None:
        # (old_start, old_end, new_start, new_end, changed), 0-based, end exclusive: an
        # unchanged block maps line to line, a changed one to its whole new span
        self.blocks = blocks

    @classmethod
    def of(cls, change: FileChange) -> "LineMap":
        before, after = change.before or "", change.after
        old, new = before.split("\n"), after.split("\n")
        lo, hi_old, hi_new = 0, len(old), len(new)
        if change.span is not None and change.replacement is not None:
            # only the lines the replaced text touches can differ: diff just those
            i, j = change.span
            lo = before.count("\n", 0, i)
            hi_old = before.count("\n", 0, j) + 1
            hi_new = hi_old + change.replacement.count("\n") - before.count("\n", i, j)
        blocks = [(0, lo, 0, lo, False)]
        for tag, i1, i2, j1, j2 in linediff.opcodes(old[lo:hi_old], new[lo:hi_new]):  # difflib: 187 s for 30,000 lines
            blocks.append((lo + i1, lo + i2, lo + j1, lo + max(j2, j1 + 1) if tag == "delete" else lo + j2, tag != "equal"))
        blocks.append((hi_old, 1 << 40, hi_new, (1 << 40) + hi_new - hi_old, False))
        return cls(blocks)

    def where(self, line: int) -> tuple[int, int]:
        """The new lines (lo, hi inclusive) an old line may now be on; one line unless it was edited."""
        for o1, o2, n1, n2, changed in self.blocks:
            if o1 <= line < o2:
                if not changed:
                    return (n1 + line - o1,) * 2
                return (n1, max(n1, n2 - 1))
        return (line, line)


def new_problems(before: list[Problem], after: list[Problem], moved: LineMap | None) -> list[Problem]:
    """The problems of `after` that no problem of `before` accounts for (each old one accounts for one)."""
    left = list(before)
    fresh = []
    for p in after:
        for i, old in enumerate(left):
            if old.key != p.key:
                continue
            lo, hi = moved.where(old.line) if moved is not None else (old.line, old.line)
            if lo <= p.line <= hi:
                del left[i]
                break
        else:
            fresh.append(p)
    return fresh


def problems_text(display: str, fresh: list[Problem]) -> str:
    shown = sorted((p for p in fresh if p.severity <= 2), key=lambda p: (p.severity, p.line))
    if not shown:
        return f"No new problems in {display}."
    errors = sum(p.severity == 1 for p in shown)
    warnings = len(shown) - errors
    counts = ", ".join(f"{n} {w}{'s' if n != 1 else ''}" for n, w in ((errors, "error"), (warnings, "warning")) if n)
    lines = [f"New problems in {display} ({counts}):"]
    lines += [f"  {p.describe()}" for p in shown[:MAX_SHOWN]]
    if len(shown) > MAX_SHOWN:
        lines.append(f"  ...and {len(shown) - MAX_SHOWN} more")
    return "\n".join(lines)


# ---------------------------------------------------------------- the fix target


@dataclass
class Target:
    """The diagnostic a fixDiagnostic task is about, followed through the task's edits."""

    path: Path
    problem: Problem
    lines: tuple[int, int]  # where it would be now (0-based, inclusive)
    gone: bool | None = None  # None: no source has said yet

    @classmethod
    def of(cls, path: Path, diag: dict[str, Any]) -> "Target | None":
        p = problem(diag)
        return cls(path, p, (p.line, p.line)) if p is not None else None

    def label(self) -> str:
        tag = " ".join(x for x in (self.problem.source, self.problem.code) if x)
        return f"{tag + ': ' if tag else ''}{self.problem.message}"

    def follow(self, moved: LineMap) -> None:
        lo, _ = moved.where(self.lines[0])
        _, hi = moved.where(self.lines[1])
        self.lines = (lo, max(lo, hi))

    def check(self, now: list[Problem]) -> str:
        still = [p for p in now if p.key == self.problem.key and self.lines[0] <= p.line <= self.lines[1]]
        self.gone = not still
        if still:
            self.lines = (still[0].line, still[0].line)
            return f"The problem being fixed ({self.label()}) is still reported at line {still[0].line + 1}."
        return f"The problem being fixed ({self.label()}) is no longer reported."


# ---------------------------------------------------------------- asking the sources
