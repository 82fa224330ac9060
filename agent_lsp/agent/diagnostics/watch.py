"""The questions around an edit: a baseline before it, the settled answer after, and what is new.

Per session, `Diagnostics` knows the agent's own diagnostic servers (started on first
use), the target of a "Fix with agent" task, and how late this editor answers; see
diagnostics/problems.py for what counts as a new problem.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Awaitable, Callable

from ..host import EditOutcome, EditStatus, FileChange
from .problems import POLL, QUIET, LineMap, Problem, Target, new_problems, problems, problems_text

if TYPE_CHECKING:
    from ...lspclient.pool import ServerPool
    from ..context import ToolContext

log = logging.getLogger("agent_lsp.diagnostics")


@dataclass
class Diagnostics:
    """Per session: the agent's own diagnostic servers, the fix target, and the questions around an edit."""

    ctx: "ToolContext"
    target: Target | None = None
    _servers: ServerPool | None = None  # created on first use when diagnosticServers is set
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

    def servers(self) -> ServerPool | None:
        if not self.ctx.settings.diagnostic_servers and self._servers is None:
            return None
        if self._servers is None:
            from ...lspclient.pool import ServerPool  # pygls' client only when configured

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

    async def from_own_servers(self, path: Path, text: str | None, budget: float) -> list[Problem] | None:
        """Our servers' problems for `path` holding exactly `text` (final: no settling needed)."""
        pool = self.servers()
        root = self.ctx.workspace.owner(path) or self.ctx.workspace.root  # once per workspace folder
        if pool is None or text is None or not pool.handles(root, path):
            return None
        return problems(await pool.diagnostics(root, path, text, budget))

    async def current(self, path: Path, text: str | None) -> list[Problem] | None:
        """Every source's settled answer for the file as it is; None when none answered."""
        budget = self.timeout
        answers = await asyncio.gather(self.editor_settled(path, None, budget), self.from_own_servers(path, text, budget))
        got = [a for a in answers if a is not None]
        return [p for a in got for p in a] if got else None

    def start_servers_for(self, path: Path) -> None:
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
        own_before = asyncio.ensure_future(diags.from_own_servers(change.path, change.before, budget))
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
        diags.from_own_servers(change.path, change.after, left) if before_own is not None else _none(),
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
    now = await diags.current(target.path, text) if text is not None else None
    if now is None:  # no source answered: say nothing rather than guess (an edit's answer may still know)
        if target.gone is None:
            return ""
        return "The problem is gone (no longer reported)." if target.gone else "The problem is still reported."
    target.check(now)
    if target.gone:
        return f"The problem is gone: {target.label()} is no longer reported."
    return f"The problem is still reported: {target.label()} (line {target.lines[0] + 1})."
