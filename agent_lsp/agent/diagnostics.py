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

import asyncio
import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Awaitable, Callable

from . import linediff
from .host import EditOutcome, EditStatus, FileChange

if TYPE_CHECKING:
    from .context import ToolContext

log = logging.getLogger("agent_lsp.diagnostics")

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

@dataclass
class Diagnostics:
    """Per session: the agent's own diagnostic servers, the fix target, and the questions around an edit."""

    ctx: "ToolContext"
    target: Target | None = None
    _servers: Any = None  # lspclient.ServerPool, created on first use when diagnosticServers is set
    _notes: list[str] = field(default_factory=list)
    editor_silent: bool = False  # the editor left a question unanswered: don't wait on it again this task
    lags: list[float] = field(default_factory=list)  # seconds from an edit to the editor's changed answer
    _settled: dict[Path, list[Problem]] = field(default_factory=dict)  # the editor's last settled answer per file

    def begin_task(self, target: Target | None) -> None:
        """A new task: its fix target (or none), and the editor gets another chance to answer."""
        self.target = target
        self.editor_silent = False

    @property
    def timeout(self) -> float:
        return float(getattr(self.ctx.settings, "diagnostics_timeout", 3.0))

    def servers(self):
        if not self.ctx.settings.diagnostic_servers and self._servers is None:
            return None
        if self._servers is None:
            from ..lspclient.pool import ServerPool  # pygls' client only when configured

            self._servers = ServerPool(lambda: self.ctx.settings.diagnostic_servers, self._notes.append)
        return self._servers

    async def aclose(self) -> None:
        if self._servers is not None:
            await self._servers.aclose()

    # ------------------------------------------------------------ source 1: the editor

    async def editor(self, path: Path, budget: float) -> list[Problem] | None:
        """What the editor shows for `path` now, or None (it can't tell, or did not answer within `budget`)."""
        if self.editor_silent:
            return None
        try:
            return problems(await asyncio.wait_for(self.ctx.host.diagnostics(path), budget))
        except TimeoutError:
            self.editor_silent = True
            log.info("the editor did not answer agentLsp/diagnostics within %.1fs; not asking again", budget)
            return None
        except asyncio.CancelledError:
            raise
        except Exception as e:  # a broken answer is no answer
            log.info("diagnostics from the editor failed: %r", e)
            return None

    async def editor_settled(self, path: Path, baseline: list[Problem] | None, budget: float) -> list[Problem] | None:
        """Ask the editor until its answers settle (or `budget` runs out): its servers publish when they are done."""
        loop = asyncio.get_running_loop()
        start = loop.time()
        deadline = start + budget
        quiet = self.quiet()
        last: list[Problem] | None = None
        while True:
            left = deadline - loop.time()
            if left <= 0:
                return last
            now = await self.editor(path, left)
            if now is None:
                return last
            if baseline is not None and now != baseline and (last is None or last == baseline):
                self.lags.append(loop.time() - start)  # how long this editor's servers took to answer an edit
            if last is not None and now == last and (now != baseline or loop.time() - start >= quiet):
                return now
            last = now
            await asyncio.sleep(min(POLL, max(0.0, deadline - loop.time())))

    def remember(self, path: Path, settled: list[Problem] | None) -> None:
        if settled is not None:
            self._settled[path] = settled

    def check_late(self, path: Path, baseline: list[Problem] | None) -> None:
        """The editor's answer changed after we took it as settled: its servers are slower than we waited."""
        last = self._settled.pop(path, None)
        if last is not None and baseline is not None and baseline != last:
            self.lags.append(min(self.timeout, 2 * self.quiet()))
            log.info("the editor's problems for %s changed after they seemed settled; waiting longer now", path)

    def quiet(self) -> float:
        """How long an answer equal to the baseline must hold: QUIET, or longer for an editor seen to be slow."""
        slowest = max(self.lags[-20:], default=0.0)
        return max(QUIET, min(self.timeout, 1.5 * slowest + POLL))

    # ------------------------------------------------------------ source 2: our own servers

    async def own(self, path: Path, text: str | None, budget: float) -> list[Problem] | None:
        """Our servers' problems for `path` holding exactly `text` (final: no settling needed)."""
        pool = self.servers()
        root = self.ctx.workspace.owner(path) or self.ctx.workspace.root  # once per workspace folder
        if pool is None or text is None or not pool.handles(root, path):
            return None
        return problems(await pool.diagnostics(root, path, text, budget))

    async def now(self, path: Path, text: str | None) -> list[Problem] | None:
        """Every source's settled answer for the file as it is; None when none answered."""
        budget = self.timeout
        answers = await asyncio.gather(self.editor_settled(path, None, budget), self.own(path, text, budget))
        got = [a for a in answers if a is not None]
        return [p for a in got for p in a] if got else None

    def warm(self, path: Path) -> None:
        """A file the agent read may be edited next: have its servers start meanwhile."""
        pool = self.servers()
        if pool is not None:
            pool.warm(self.ctx.workspace.owner(path) or self.ctx.workspace.root, path)

    def take_notes(self) -> list[str]:
        notes, self._notes[:] = list(self._notes), []
        return notes


async def apply_watched(ctx: "ToolContext", change: FileChange, apply: Callable[[FileChange], Awaitable[EditOutcome]]) -> tuple[EditOutcome, str]:
    """Apply `change` through `apply`, and say what it broke (and whether the fix target is gone).

    The editor's baseline is asked for before the edit is proposed (its answer must
    describe the old text); our own servers are given the old text explicitly, so their
    baseline runs meanwhile. Each source's delta is its own: after against before.
    """
    diags: Diagnostics | None = getattr(ctx, "diagnostics", None)
    if diags is None or diags.timeout <= 0:  # diagnosticsTimeout 0: not asked at all
        return await apply(change), ""
    loop = asyncio.get_running_loop()
    budget = diags.timeout
    began = loop.time()
    own_before: asyncio.Future | None = None
    editor_before: list[Problem] | None = []
    if change.before is not None:
        own_before = asyncio.ensure_future(diags.own(change.path, change.before, budget))
        editor_before = await diags.editor(change.path, budget)
        diags.check_late(change.path, editor_before)
    try:
        outcome = await apply(change)
    except BaseException:
        if own_before is not None:
            own_before.cancel()
        raise
    if outcome.status is not EditStatus.ACCEPTED:
        if own_before is not None:
            own_before.cancel()
        return outcome, ""
    accepted = loop.time()
    left = max(budget - (accepted - began), 0.05)  # our servers had the review's time too
    try:
        before_own = await asyncio.wait_for(asyncio.shield(own_before), left) if own_before is not None else []
    except TimeoutError:
        own_before.cancel()
        before_own = None
    left = max(budget - (loop.time() - accepted), 0.05)
    moved = await asyncio.to_thread(LineMap.of, change) if change.before is not None else None  # a big rewrite's diff
    after_editor, after_own = await asyncio.gather(
        diags.editor_settled(change.path, editor_before, left) if editor_before is not None else _none(),
        diags.own(change.path, change.after, left) if before_own is not None else _none(),
    )
    diags.remember(change.path, after_editor)
    notes = [f"note: {n}" for n in diags.take_notes()]
    target = diags.target
    if target is not None and target.path == change.path and moved is not None:
        target.follow(moved)
    pairs = [(b, a) for b, a in ((editor_before, after_editor), (before_own, after_own)) if b is not None and a is not None]
    if not pairs:
        return outcome, "\n".join(notes)
    fresh = [p for b, a in pairs for p in new_problems(b, a, moved)]
    parts = [problems_text(ctx.workspace.display(change.path), fresh)]
    if target is not None and target.path == change.path:
        parts.append(target.check([p for _, a in pairs for p in a]))
    return outcome, "\n".join(parts + notes)


async def _none() -> None:
    return None


async def final_note(ctx: "ToolContext") -> str:
    """For the end of a fix task: is the problem gone? Asked once more, since commands may have changed the file."""
    diags: Diagnostics | None = getattr(ctx, "diagnostics", None)
    if diags is None or diags.target is None or diags.timeout <= 0:
        return ""
    target = diags.target
    try:
        text = await ctx.read_text(target.path)
    except (OSError, UnicodeDecodeError):
        text = None
    now = await diags.now(target.path, text) if text is not None else None
    if now is None:  # no source answered: say nothing rather than guess (an edit's answer may still know)
        if target.gone is None:
            return ""
        return "The problem is gone (no longer reported)." if target.gone else "The problem is still reported."
    target.check(now)
    if target.gone:
        return f"The problem is gone: {target.label()} is no longer reported."
    return f"The problem is still reported: {target.label()} (line {target.lines[0] + 1})."
