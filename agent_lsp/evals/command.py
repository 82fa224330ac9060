"""`agent-lsp eval`: run a suite against the configured endpoint and print (and keep) the figures.

Exit 0 whenever the eval ran to its end, whatever the pass rate; 2 when the harness
itself could not (a bad suite, an unreachable endpoint, an unreadable report), said
in one line. Only the figures go to stdout; progress goes to stderr.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

EXIT_OK, EXIT_HARNESS, EXIT_CANCELLED = 0, 2, 130


def add_eval_parser(sub: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    p = sub.add_parser("eval", help="measure the agent on a suite of tasks (pass rate, steps, tokens, time)")
    p.add_argument("--suite", default="builtin", help="builtin (default) or a folder of task folders")
    p.add_argument("--tasks", help="comma-separated task names (default: all)")
    p.add_argument("--repeat", type=_positive, default=1, metavar="K", help="attempts per task; the table shows pass@K")
    p.add_argument("--jobs", type=_positive, default=1, metavar="N", help="runs at once (default 1)")
    p.add_argument("--json", metavar="FILE", help="write every figure, answer and transcript path here")
    p.add_argument("--via", choices=["cli", "lsp"], default="cli",
                   help="cli: agent-lsp run --yes; lsp: agent-lsp serve driven by an LSP client")
    p.add_argument("--list", action="store_true", help="print each task as NAME<TAB>DIRECTORY and exit")
    p.add_argument("--compare", nargs=2, metavar=("A.json", "B.json"), help="per-task differences of two reports")
    p.add_argument("--model", help="model id (default $AGENT_MODEL or gpt-4o-mini)")
    p.add_argument("--base-url", help="OpenAI-compatible API root (default $AGENT_BASE_URL)")
    p.add_argument("--max-steps", type=_positive, help="tool rounds per task (overrides the tasks' max_steps)")
    p.add_argument("--task-timeout", type=float, metavar="S", help="seconds per task (overrides the tasks' timeout)")
    p.add_argument("--out", metavar="DIR", help="where each run's workspace and transcript are kept (default: a new temp folder)")


def _positive(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        n = 0
    if n < 1:
        raise argparse.ArgumentTypeError(f"must be a positive integer, got {text!r}")
    return n


def _fail(message: str) -> int:
    print(f"agent-lsp eval: {message}", file=sys.stderr)
    return EXIT_HARNESS


class Progress:
    """One line on stderr: a live status line on a terminal, a line per finished run elsewhere."""

    def __init__(self, stream=None) -> None:
        self.stream = stream or sys.stderr
        self.live = bool(getattr(self.stream, "isatty", lambda: False)())
        self.t0 = time.monotonic()
        self.seen = 0
        self.state: tuple | None = None  # the last (running, done, total), for the ticking clock

    async def tick(self) -> None:
        """Keep the live line's clock moving while long tasks run."""
        import asyncio

        while self.live:
            await asyncio.sleep(1)
            if self.state is not None:
                self(*self.state)

    def __call__(self, running: list[str], done: list, total: int) -> None:
        from .table import duration

        self.state = (running, done, total)
        passed = sum(r.passed for r in done)
        elapsed = duration(time.monotonic() - self.t0)
        if self.live:
            now = ", ".join(running) or "-"
            line = f"[{len(done)}/{total}] {passed} passed, {len(done) - passed} failed | running: {now} | {elapsed}"
            self.stream.write("\r\033[K" + line[:200])
            self.stream.flush()
            return
        for r in done[self.seen:]:
            verdict = "pass" if r.passed else f"FAIL ({r.reason[:80]})"
            self.stream.write(f"[{done.index(r) + 1}/{total}] {r.task}#{r.attempt}: {verdict}, "
                              f"{r.steps} steps, {r.seconds:.1f}s | {elapsed}\n")
        self.seen = len(done)
        self.stream.flush()

    def close(self) -> None:
        if self.live:
            self.stream.write("\r\033[K")
            self.stream.flush()


def run_eval(args: argparse.Namespace) -> int:
    import asyncio
    import json
    import tempfile

    from ..agent.settings import Settings
    from ..agent.model.endpoint import endpoint_problem
    from .compare import CompareError, compare
    from .runner import Plan, run_suite
    from .table import render, report
    from .task import SuiteError, load_suite

    if args.compare:
        try:
            print(compare(*args.compare))
        except CompareError as e:
            return _fail(str(e))
        return EXIT_OK
    names = [n.strip() for n in (args.tasks or "").split(",") if n.strip()] or None
    try:
        tasks = load_suite(args.suite, names)
    except SuiteError as e:
        return _fail(str(e))
    if args.list:
        for t in tasks:
            print(f"{t.name}\t{t.directory}")
        return EXIT_OK
    settings = Settings.from_env()
    settings.overlay({"base_url": args.base_url, "model": args.model})
    why = endpoint_problem(settings)
    if why is not None:
        return _fail(f"no model answers at {settings.base_url} ({why}); set AGENT_BASE_URL / --base-url")
    if args.json:
        try:
            Path(args.json).parent.mkdir(parents=True, exist_ok=True)
            Path(args.json).touch()
        except OSError as e:
            return _fail(f"cannot write {args.json}: {e.strerror or e}")
    out = Path(args.out).resolve() if args.out else Path(tempfile.mkdtemp(prefix="agent-lsp-eval-"))
    plan = Plan(settings=settings, out=out, via=args.via, max_steps=args.max_steps, timeout=args.task_timeout)
    print(f"agent-lsp eval: {len(tasks)} task(s) x {args.repeat}, {args.jobs} at once, via {args.via}, "
          f"model {settings.model} at {settings.base_url}; runs in {out}", file=sys.stderr)
    progress = Progress()
    t0 = time.monotonic()
    async def run_with_progress():
        ticker = asyncio.ensure_future(progress.tick())
        try:
            return await run_suite(plan, tasks, repeat=args.repeat, jobs=args.jobs, on_change=progress)
        finally:
            ticker.cancel()

    try:
        results = asyncio.run(run_with_progress())
    except KeyboardInterrupt:
        progress.close()
        print("agent-lsp eval: interrupted", file=sys.stderr)
        return EXIT_CANCELLED
    progress.close()
    meta = {"suite": str(args.suite), "via": args.via, "model": settings.model, "base_url": settings.base_url,
            "repeat": args.repeat, "jobs": args.jobs, "out": str(out),
            "started": time.strftime("%Y-%m-%dT%H:%M:%S", time.localtime(time.time() - (time.monotonic() - t0)))}
    data = report(results, time.monotonic() - t0, meta)
    print(render(data))
    if args.json:
        try:
            Path(args.json).write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        except OSError as e:
            return _fail(f"cannot write {args.json}: {e.strerror or e}")
        print(f"agent-lsp eval: report written to {args.json}", file=sys.stderr)
    return EXIT_OK
