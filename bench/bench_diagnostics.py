"""What diagnostics add to one edit: edit_file latency with and without a diagnostics source.

    .venv/bin/python bench/bench_diagnostics.py [--edits 40]

Each edit is one `edit_file` call through `run_tool`, the way the loop runs it, on a
150-line Python file; every other edit changes the problems (it introduces an undefined
name, or removes it again), the others only add or drop a comment. Measured in the same run:

- baseline: no source (the edit is written to disk and that is all);
- ruff: `diagnosticServers = {"*.py": ["ruff", "server"]}` (real `ruff server`, started
  by a warm-up edit first; its start-up is shown on its own);
- editor: a Host whose `diagnostics()` answers like an editor whose linter publishes
  `lag` ms after the edit reached the disk (0, 50, 250 ms), in-process: this shows the
  settling policy (diagnostics.POLL / QUIET);
- editor over LSP: the real path, `agent-lsp serve` and a pytest-lsp client that answers
  `agentLsp/diagnostics` from its buffer at once (like VS Code's getDiagnostics), one task
  of `--edits` edits with the scripted model; per edit = the time between two model
  requests, against the same task with a client that lacks the capability.

The table gives p50 / p95 per edit and what the source adds to the baseline's p50.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from agent_lsp.agent.diagnostics import problems as D  # noqa: E402
from agent_lsp.agent.context import ToolContext  # noqa: E402
from agent_lsp.agent.diskhost import DiskHost  # noqa: E402
from agent_lsp.agent.dispatch import run_tool  # noqa: E402
from agent_lsp.agent.loop import TOOLS  # noqa: E402
from agent_lsp.agent.workspace.paths import Workspace  # noqa: E402
from agent_lsp.agent.settings import Settings  # noqa: E402

BODY = "".join(f"def f{i}(x):\n    return x + {i}\n\n\n" for i in range(37))
GOOD, BAD = "    return x + 0\n", "    return x + undefined_name\n"


class LaggingEditor(DiskHost):
    """An editor whose linter answers for the new text `lag` seconds after the edit is on disk."""

    def __init__(self, lag: float) -> None:
        self.lag = lag
        self.changed_at = 0.0
        self.shown: list[dict] = []
        self.pending: list[dict] = []

    @staticmethod
    def lint(text: str) -> list[dict]:
        return [{"range": {"start": {"line": i, "character": 15}}, "message": "Undefined name `undefined_name`",
                 "severity": 1, "source": "lint", "code": "F821"}
                for i, line in enumerate(text.split("\n")) if "undefined_name" in line]

    async def apply_edit(self, change):
        outcome = await super().apply_edit(change)
        self.pending = self.lint(change.after)
        self.changed_at = time.perf_counter()
        return outcome

    async def diagnostics(self, path: Path) -> list[dict] | None:
        if time.perf_counter() - self.changed_at >= self.lag:
            self.shown = self.pending
        return list(self.shown)


CALM, NOTE = "    return x + 1\n", "    return x + 1  # one\n"


def call(i: int) -> dict:
    """Even edits change the problems (add the undefined name, then remove it); odd ones don't (a comment)."""
    old, new = [(GOOD, BAD), (CALM, NOTE), (BAD, GOOD), (NOTE, CALM)][i % 4]
    return {"id": f"c{i}", "type": "function",
            "function": {"name": "edit_file", "arguments": json.dumps({"path": "m.py", "old": old, "new": new})}}


async def run(ctx: ToolContext, edits: int) -> tuple[list[float], list[str]]:
    times, results = [], []
    for i in range(edits):
        t = time.perf_counter()
        results.append(await run_tool(ctx, call(i), TOOLS))
        times.append(time.perf_counter() - t)
    return times, results


def context(root: Path, host, **settings) -> ToolContext:
    (root / "m.py").write_text(BODY)
    s = Settings()
    for k, v in settings.items():
        setattr(s, k, v)
    s.auto_approve = True
    return ToolContext(workspace=Workspace([root]), host=host, settings=s)


def pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(q * (len(xs) - 1))))]


async def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--edits", type=int, default=40)
    ap.add_argument("--no-lsp", action="store_true", help="skip the end-to-end editor rows")
    args = ap.parse_args()
    ruff = shutil.which("ruff", path=str(Path(sys.executable).parent)) or shutil.which("ruff")
    rows: list[tuple[str, list[float], str]] = []
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        for name, host, extra in [("baseline (no source)", DiskHost(), {})]:
            (base / "a").mkdir()
            ctx = context(base / "a", host, **extra)
            times, res = await run(ctx, args.edits)
            rows.append((name, times, res[0].split("\n", 1)[-1][:60]))
        if ruff:
            (base / "r").mkdir()
            ctx = context(base / "r", DiskHost(), diagnostic_servers={"*.py": [ruff, "server"]})
            t = time.perf_counter()
            warm = await run_tool(ctx, call(1), TOOLS)  # starts the server (a comment: no problem)
            warm += await run_tool(ctx, call(3), TOOLS)
            start_up = time.perf_counter() - t
            times, res = await run(ctx, args.edits)
            await ctx.diagnostics.aclose()
            rows.append((f"ruff server (first edit, with start-up: {start_up * 1000:.0f} ms)", times, res[0].split("\n")[1][:60]))
            assert "error" not in warm, warm
        else:
            print("(ruff not found: pip install -e '.[dev]')")
        for lag in (0.0, 0.05, 0.25):
            d = base / f"e{int(lag * 1000)}"
            d.mkdir()
            ctx = context(d, LaggingEditor(lag))
            times, res = await run(ctx, args.edits)
            rows.append((f"editor, linter lag {lag * 1000:.0f} ms", times, res[0].split("\n")[1][:60]))
    if not args.no_lsp:
        rows += await lsp_rows(args.edits)
    b50 = statistics.median(rows[0][1])
    print(f"{args.edits} edit_file calls each; POLL={D.POLL * 1000:.0f} ms, QUIET={D.QUIET * 1000:.0f} ms\n")
    print(f"{'source':<52} {'p50 ms':>8} {'p95 ms':>8} {'+p50 ms':>8}  first result line")
    for name, times, first in rows:
        p50, p95 = statistics.median(times), pct(times, 0.95)
        base = statistics.median(rows[-2][1]) if name.startswith("editor over LSP") else b50
        print(f"{name:<52} {p50 * 1000:>8.1f} {p95 * 1000:>8.1f} {(p50 - base) * 1000:>8.1f}  {first}")
    # the split the editor rows hide: edits whose problems changed settle fast, unchanged ones wait QUIET
    print("\nsplit: p50 when the problems changed / when they did not (every other edit)")
    for name, times, _ in rows:
        changed, same = times[0::2], times[1::2]
        print(f"  {name:<50} {statistics.median(changed) * 1000:>8.1f} / {statistics.median(same) * 1000:.1f} ms")


async def lsp_rows(edits: int) -> list[tuple[str, list[float], str]]:
    """The editor source end to end: per-edit intervals between model requests, with and without it."""
    from tests.lsp_helpers import start_editor, stop_editor
    from tests.scripted_model import ScriptedModel, reply

    out = []
    for label, caps in (("editor over LSP: no capability (baseline)", None),
                        ("editor over LSP: agentLsp/diagnostics", {"diagnostics": True})):
        with tempfile.TemporaryDirectory() as tmp, ScriptedModel() as model:
            root = Path(tmp)
            (root / "m.py").write_text(BODY)
            stamps: list[float] = []

            def stamped(r):
                def fn(body, r=r):
                    stamps.append(time.perf_counter())
                    return r
                return fn

            calls = [json.loads(call(i)["function"]["arguments"]) for i in range(edits)]
            model.add(*[stamped({"tool_calls": [{"name": "edit_file", "arguments": a}]}) for a in calls],
                      stamped(reply("done")))
            editor = await start_editor(root, model.base_url, agent_lsp=caps,
                                        init_options={"autoApprove": True, "maxSteps": edits + 5})
            try:
                uri = editor.open(root / "m.py")
                if caps:
                    @editor.client.feature("agentLsp/diagnostics")
                    def answer(params):
                        return {"diagnostics": LaggingEditor.lint(editor.text(uri))}
                from lsprotocol import types
                await asyncio.wait_for(editor.client.workspace_execute_command_async(
                    types.ExecuteCommandParams(command="agentLsp.runTask", arguments=[{"task": "edit"}])), 300)
            finally:
                await stop_editor(editor)
            gaps = [b - a for a, b in zip(stamps, stamps[1:])]
            out.append((label, gaps, ""))
    return out


if __name__ == "__main__":
    asyncio.run(main())
