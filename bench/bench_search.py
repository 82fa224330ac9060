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
import resource
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
from agent_lsp.agent.workspace.paths import Workspace  # noqa: E402
from agent_lsp.agent.settings import Settings  # noqa: E402
from agent_lsp.agent.tools.search import grep, list_files  # noqa: E402
from agent_lsp.agent.workspace.scan import rg_binary  # noqa: E402

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


def _cpu() -> float:
    """CPU seconds of this process and of its finished children (rg) so far."""
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


class Runner:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.ctx = ToolContext(workspace=Workspace([root]), host=DiskHost(), settings=Settings())
        self.loop = asyncio.new_event_loop()
        self.rg = rg_binary()
        if self.rg is None:
            sys.exit("no rg binary found (is AGENT_LSP_NO_RG set?)")

    def ours(self, coro_fn, *args, python: bool = False) -> tuple[float, float, str]:
        old = os.environ.get("AGENT_LSP_NO_RG")
        if python:
            os.environ["AGENT_LSP_NO_RG"] = "1"  # rg_binary() reads it on every call
        try:
            c0, t0 = _cpu(), time.perf_counter()
            out = self.loop.run_until_complete(coro_fn(self.ctx, *args))
            return time.perf_counter() - t0, _cpu() - c0, out
        finally:
            if python and old is None:
                os.environ.pop("AGENT_LSP_NO_RG", None)

    def rg_run(self, args: list[str]) -> tuple[float, float, bytes]:
        c0, t0 = _cpu(), time.perf_counter()
        p = subprocess.run([self.rg, *args], cwd=self.root, stdin=subprocess.DEVNULL, capture_output=True)
        dt = time.perf_counter() - t0
        if p.returncode not in (0, 1):
            raise RuntimeError(p.stderr.decode())
        return dt, _cpu() - c0, p.stdout


def measure(runner: Runner, ours, rg_args: list[str], runs: int) -> dict:
    r: dict = {"ours": [], "rg": [], "ours_cpu": [], "rg_cpu": []}
    ours()  # warm-up
    runner.rg_run(rg_args)
    for _ in range(runs):  # interleaved, so drift in the machine's load hits both sides alike
        dt, cpu, out = ours()
        r["ours"].append(dt)
        r["ours_cpu"].append(cpu)
        dt, cpu, rg_out = runner.rg_run(rg_args)
        r["rg"].append(dt)
        r["rg_cpu"].append(cpu)
    r["ours_found"] = total_of(out)
    r["rg_found"] = rg_out.count(b"\n")
    return r


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=7, help="timed runs per case after one warm-up (default 7)")
    ap.add_argument("--py-runs", type=int, default=1, help="timed runs of the pure-Python fallback (default 1)")
    ap.add_argument("--no-python", action="store_true", help="skip the pure-Python fallback (slow)")
    a = ap.parse_args(argv)

    root = ensure_tree()
    info = describe(root)["stats"]
    runner = Runner(root)
    version = subprocess.run([runner.rg, "--version"], capture_output=True, text=True).stdout.splitlines()[0]
    print(f"tree: {root} -- {info['files']} files, {info['lines']} lines, {info['bytes'] / 1e6:.0f} MB")
    print(f"rg: {runner.rg} ({version}); python {platform.python_version()}; {os.cpu_count()} cpus; "
          f"{time.strftime('%Y-%m-%d %H:%M')}; load average at start {os.getloadavg()[0]:.1f}")
    print(f"runs={a.runs} after 1 warm-up, ours and rg interleaved; times in ms\n")

    rows = []
    for label, regex in GREP_CASES:
        r = measure(runner, lambda rx=regex: runner.ours(grep, rx), ["-n", "-e", regex, "."], a.runs)
        if not a.no_python:
            py = [runner.ours(grep, regex, python=True) for _ in range(a.py_runs)]
            r["py"], r["py_found"] = [t for t, _c, _o in py], total_of(py[-1][2])
        rows.append((f"grep {label}", f"rg -n '{regex}' .", r))
    for label, pattern, globs in LIST_CASES:
        r = measure(runner, lambda pt=pattern: runner.ours(list_files, ".", pt), ["--files", *globs], a.runs)
        if not a.no_python:
            py = [runner.ours(list_files, ".", pattern, python=True) for _ in range(a.py_runs)]
            r["py"], r["py_found"] = [t for t, _c, _o in py], total_of(py[-1][2])
        rows.append((f"list_files {label}", "rg --files " + " ".join(f"'{g}'" if "*" in g else g for g in globs), r))

    cols = [("case", 22, "<"), ("reference", 29, "<"), ("ours best", 10, ">"), ("ours med", 9, ">"),
            ("rg best", 8, ">"), ("rg med", 8, ">"), ("ratio best", 11, ">"), ("ratio med", 10, ">"),
            ("goal", 5, ">"), ("cpu ratio", 10, ">"), ("found ours/rg", 16, ">")]
    if not a.no_python:
        cols += [("python", 8, ">"), ("py/rg", 7, ">"), ("py found", 9, ">")]
    print("".join(f"{name:{al}{w}}" for name, w, al in cols))
    print("-" * sum(w for _n, w, _a in cols))
    worst = 0.0
    for name, ref, r in rows:
        ob, om, rb, rm = min(r["ours"]), statistics.median(r["ours"]), min(r["rg"]), statistics.median(r["rg"])
        worst = max(worst, om / rm)
        cells = [name, ref, f"{ob * 1000:.1f}", f"{om * 1000:.1f}", f"{rb * 1000:.1f}", f"{rm * 1000:.1f}",
                 f"{ob / rb:.2f}x", f"{om / rm:.2f}x", "ok" if om / rm <= GOAL else "MISS",
                 f"{statistics.median(r['ours_cpu']) / statistics.median(r['rg_cpu']):.2f}x",
                 f"{r['ours_found']}/{r['rg_found']}"]
        if "py" in r:
            py = statistics.median(r["py"])
            cells += [f"{py * 1000:.0f}", f"{py / rm:.1f}x", str(r["py_found"])]
        print("".join(f"{c:{al}{w}}" for c, (_n, w, al) in zip(cells, cols)))
    print(f"\ngoal: ours/rg <= {GOAL}x on the median wall time; worst this run: {worst:.2f}x "
          f"(load average at end {os.getloadavg()[0]:.1f})")
    print("cpu ratio: CPU time (this process + rg, user+sys) ours/rg, medians; less sensitive to other load.")
    print("found: matching lines (grep) or files (list_files) reported; ours also searches hidden files "
          "(--hidden), e.g. .github/, so small differences are expected.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
