"""Our grep / list_files tools against plain ripgrep, on the same generated tree.

    .venv/bin/python bench/bench_search.py [--runs 7] [--py-runs 1] [--no-python]

The tree comes from make_tree.py (20,000 files, ~2M lines, generated once and cached
under bench/.data/). The tools are called the way the agent calls them: the async tool
functions with a ToolContext over a DiskHost. The reference is the same rg binary the
tools use, run with plain equivalent command lines (``rg -n REGEX .``, ``rg --files``)
and its output read into memory through a pipe (a pipe, not /dev/null: rg notices
/dev/null and stops at the first match).

Each case gets one warm-up of each side, then `--runs` alternating runs; the table
shows best and median wall time and the ratios ours/rg (goal: <= 1.5x). The pure-Python
fallback (AGENT_LSP_NO_RG=1) is timed too, for information, with `--py-runs` runs (the
page cache is already warm from the rg runs).

Timing is wall clock of the whole call, process start-up included, since that is what
the model waits for. Absolute numbers depend on the machine; only the ratios measured
in one run are meant to be compared.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

from make_tree import RARE_LITERAL, describe, ensure_tree  # noqa: E402

from agent_lsp.agent.context import ToolContext  # noqa: E402
from agent_lsp.agent.diskhost import DiskHost  # noqa: E402
from agent_lsp.agent.paths import Workspace  # noqa: E402
from agent_lsp.agent.settings import Settings  # noqa: E402
from agent_lsp.agent.tools.search import grep, list_files  # noqa: E402
from agent_lsp.agent.walk import rg_binary  # noqa: E402

GOAL = 1.5

GREP_CASES = [
    ("rare literal", RARE_LITERAL),
    ("common word", "return"),
    ("alternation", "TODO|FIXME|HACK"),
    ("no match", "qqxzy_never_there"),
]
LIST_CASES = [
    ("all files", "*", []),
    ("*.py", "*.py", ["-g", "*.py"]),
]

_MORE = re.compile(r"\n\.\.\.and (\d+) more (?:matches|files)")


def total_of(out: str) -> int:
    """How many matches/files a tool result stands for: the lines shown plus '...and N more'."""
    if out.startswith("(no match"):
        return 0
    m = _MORE.search(out)
    shown = out[: m.start()] if m else out
    return len(shown.splitlines()) + (int(m.group(1)) if m else 0)


class Runner:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.ctx = ToolContext(workspace=Workspace([root]), host=DiskHost(), settings=Settings())
        self.loop = asyncio.new_event_loop()
        self.rg = rg_binary()
        if self.rg is None:
            sys.exit("no rg binary found (is AGENT_LSP_NO_RG set?)")

    def ours(self, coro_fn, *args, python: bool = False) -> tuple[float, str]:
        old = os.environ.get("AGENT_LSP_NO_RG")
        if python:
            os.environ["AGENT_LSP_NO_RG"] = "1"
        try:
            t0 = time.perf_counter()
            out = self.loop.run_until_complete(coro_fn(self.ctx, *args))
            return time.perf_counter() - t0, out
        finally:
            if python and old is None:
                os.environ.pop("AGENT_LSP_NO_RG", None)

    def rg_run(self, args: list[str]) -> tuple[float, bytes]:
        t0 = time.perf_counter()
        p = subprocess.run([self.rg, *args], cwd=self.root, stdin=subprocess.DEVNULL,
                           capture_output=True)
        dt = time.perf_counter() - t0
        if p.returncode not in (0, 1):
            raise RuntimeError(p.stderr.decode())
        return dt, p.stdout


def measure(runner: Runner, ours, rg_args: list[str], runs: int) -> dict:
    t_ours, t_rg = [], []
    _, out = ours()            # warm-up
    _, rg_out = runner.rg_run(rg_args)
    for _ in range(runs):
        dt, out = ours()
        t_ours.append(dt)
        dt, rg_out = runner.rg_run(rg_args)
        t_rg.append(dt)
    return {"ours": t_ours, "rg": t_rg, "ours_total": total_of(out), "rg_total": rg_out.count(b"\n")}


def ms(x: float) -> str:
    return f"{x * 1000:8.1f}"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=7, help="timed runs per case after one warm-up (default 7)")
    ap.add_argument("--py-runs", type=int, default=1, help="timed runs of the pure-Python fallback (default 1)")
    ap.add_argument("--no-python", action="store_true", help="skip the pure-Python fallback (slow)")
    a = ap.parse_args(argv)

    root = ensure_tree()
    info = describe(root)["stats"]
    runner = Runner(root)
    print(f"tree: {root} — {info['files']} files, {info['lines']} lines, {info['bytes'] / 1e6:.0f} MB")
    print(f"rg: {runner.rg} ({subprocess.run([runner.rg, '--version'], capture_output=True, text=True).stdout.split(chr(10))[0]})")
    print(f"python {platform.python_version()}, {os.cpu_count()} cpus, {time.strftime('%Y-%m-%d %H:%M')}, "
          f"runs={a.runs} (+1 warm-up), times in ms\n")

    rows = []
    for label, regex in GREP_CASES:
        r = measure(runner, lambda rx=regex: runner.ours(grep, rx), ["-n", "-e", regex, "."], a.runs)
        rows.append((f"grep {label}", f"rg -n '{regex}' .", r))
    for label, pattern, globs in LIST_CASES:
        r = measure(runner, lambda pt=pattern: runner.ours(list_files, ".", pt), ["--files", *globs], a.runs)
        rows.append((f"list_files {label}", "rg --files " + " ".join(f"'{g}'" if "*" in g else g for g in globs), r))

    if not a.no_python:
        for (label, regex), row in zip(GREP_CASES, rows):
            row[2]["py"] = [runner.ours(grep, regex, python=True)[0] for _ in range(a.py_runs)]
        for (label, pattern, _), row in zip(LIST_CASES, rows[len(GREP_CASES):]):
            row[2]["py"] = [runner.ours(list_files, ".", pattern, python=True)[0] for _ in range(a.py_runs)]

    head = (f"{'case':<24}{'reference':<30}{'ours best':>10}{'ours med':>10}{'rg best':>9}{'rg med':>9}"
            f"{'ratio best':>11}{'ratio med':>10}{'goal':>6}{'  found ours/rg':<18}")
    if not a.no_python:
        head += f"{'python':>9}{'py/rg':>8}"
    print(head)
    print("-" * len(head))
    worst = 0.0
    for name, ref, r in rows:
        ob, om, rb, rm = min(r["ours"]), statistics.median(r["ours"]), min(r["rg"]), statistics.median(r["rg"])
        ratio_b, ratio_m = ob / rb, om / rm
        worst = max(worst, ratio_m)
        ok = "ok" if ratio_m <= GOAL else "MISS"
        line = (f"{name:<24}{ref:<30}{ms(ob):>10}{ms(om):>10}{ms(rb):>9}{ms(rm):>9}"
                f"{ratio_b:>10.2f}x{ratio_m:>9.2f}x{ok:>6}  {r['ours_total']}/{r['rg_total']}")
        if "py" in r:
            py = statistics.median(r["py"])
            line = f"{line:<{len(head) - 17}}{ms(py):>9}{py / rm:>7.0f}x"
        print(line)
    print(f"\ngoal: ours/rg <= {GOAL}x (judged on the median); worst median ratio this run: {worst:.2f}x")
    print("found: matching lines (grep) or files (list_files) each side reports; ours searches hidden files "
          "too (--hidden) and skips noise dirs, so small differences are expected")
    return 0


if __name__ == "__main__":
    sys.exit(main())
