"""How long a `write_file` over a big file takes to become LSP edits, and whether the event loop stays free.

    .venv/bin/python bench/bench_diff.py [--lines 100000] [--changes 50] [--runs 5]

In process, on `edits.minimal_edits` (what the server sends for a write_file):

* 50 scattered one-line changes in a 100,000-line file (goal < 200 ms) and a full
  rewrite of it (goal < 1 s), best and median of `--runs`; each result is applied back
  with `edits.apply_edits` and must give the new text exactly;
* the same on 2,000 lines with difflib (the old way) for scale, in the same run;
* loop lag: the diff runs in `asyncio.to_thread` (as lsphost does) while the loop sleeps
  1 ms at a time; the worst and p99 extra wait is what a code action would queue behind
  (goal p99 < 50 ms). Idle lag measured the same way, in the same run.

Plain python: prints numbers and ratios, asserts only that the edits are exact.
"""

from __future__ import annotations

import argparse
import asyncio
import difflib
import os
import random
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from agent_lsp.agent.host import FileChange  # noqa: E402
from agent_lsp.server.edits import apply_edits, minimal_edits  # noqa: E402

WORDS = "alpha beta gamma delta return if else for while def class self value index None".split()


COMMON = ["\n", "    return None\n", "        }\n", "    }\n", "\n", "        pass\n"]  # what code repeats


def make_lines(rnd: random.Random, n: int) -> list[str]:
    return [rnd.choice(COMMON) if rnd.random() < 0.3 else
            "    " + " ".join(rnd.choice(WORDS) for _ in range(rnd.randrange(2, 9))) + "\n" for _ in range(n)]


def scattered(rnd: random.Random, lines: list[str], k: int) -> list[str]:
    out = list(lines)
    for i in rnd.sample(range(len(out)), k):
        out[i] = f"    changed_{i}()\n"
    return out


def change(before: str, after: str) -> FileChange:
    return FileChange("write_file", Path("big.py"), "big.py", before, after)


def timed(before: str, after: str, runs: int) -> tuple[list[float], list]:
    times, edits = [], []
    for _ in range(runs):
        t0 = time.perf_counter()
        edits = minimal_edits(change(before, after), "utf-16")
        times.append((time.perf_counter() - t0) * 1000)
    assert apply_edits(before, edits, "utf-16") == after, "the edits do not give the new text"
    return times, edits


def old_way(before: str, after: str) -> float:
    a, b = before.splitlines(keepends=True), after.splitlines(keepends=True)
    t0 = time.perf_counter()
    difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes()
    return (time.perf_counter() - t0) * 1000


async def loop_lag(work) -> list[float]:
    """Extra wait (ms) of 1 ms sleeps on the loop while `work` runs in a thread (or for 1 s idle)."""
    fut = asyncio.ensure_future(asyncio.to_thread(work)) if work else asyncio.ensure_future(asyncio.sleep(1))
    lags = []
    while not fut.done():
        t0 = time.perf_counter()
        await asyncio.sleep(0.001)
        lags.append((time.perf_counter() - t0) * 1000 - 1)
    await fut
    return lags


def p99(values: list[float]) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, int(0.99 * len(s)))]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lines", type=int, default=100_000)
    ap.add_argument("--changes", type=int, default=50)
    ap.add_argument("--runs", type=int, default=5)
    a = ap.parse_args(argv)
    sys.setswitchinterval(0.001)  # as the server does (main.py)
    rnd = random.Random(20261201)
    lines = make_lines(rnd, a.lines)
    before = "".join(lines)
    cases = {
        f"{a.changes} scattered changes": ("".join(scattered(rnd, lines, a.changes)), 200.0),
        "full rewrite": ("".join(make_lines(rnd, a.lines)), 1000.0),
    }
    print(f"python {sys.version.split()[0]}; {os.cpu_count()} cpus; {time.strftime('%Y-%m-%d %H:%M')}; "
          f"load average {os.getloadavg()[0]:.1f}; {a.lines:,} lines, {len(before) / 1e6:.1f} MB\n")
    print(f"{'minimal_edits':<34}{'best ms':>9}{'median ms':>11}{'edits':>7}   goal")
    for name, (after, goal) in cases.items():
        times, edits = timed(before, after, a.runs)
        med = statistics.median(times)
        print(f"  {name:<32}{min(times):9.1f}{med:11.1f}{len(edits):7}   < {goal:g} ms: {'ok' if med < goal else 'MISS'}")
    small = make_lines(rnd, 2000)
    small_after = "".join(scattered(rnd, small, a.changes))
    ours = statistics.median(timed("".join(small), small_after, a.runs)[0])
    old = old_way("".join(small), small_after)
    print(f"  2,000 lines, {a.changes} changes: ours {ours:.1f} ms, difflib (before this change) {old:.0f} ms "
          f"({old / ours:.0f}x)\n")

    async def lags() -> None:
        idle = await loop_lag(None)
        print(f"{'loop lag (1 ms sleeps)':<34}{'p99 ms':>9}{'max ms':>11}{'samples':>9}")
        print(f"  {'idle':<32}{p99(idle):9.2f}{max(idle):11.2f}{len(idle):9}")
        for name, (after, _goal) in cases.items():
            lag = await loop_lag(lambda after=after: minimal_edits(change(before, after), "utf-16"))
            print(f"  {'while diffing: ' + name:<32}{p99(lag):9.2f}{max(lag):11.2f}{len(lag):9}   "
                  f"goal p99 < 50 ms: {'ok' if p99(lag) < 50 else 'MISS'}")

    asyncio.run(lags())
    return 0


if __name__ == "__main__":
    sys.exit(main())
