"""Where grep / list_files spend their time beyond rg, and what a leaner reader would save.

    .venv/bin/python bench/why_search.py [--runs 11]

Peels the tools apart layer by layer on the bench tree (make_tree.py), every variant
timed interleaved with the others (best and median of `--runs` after a warm-up):

  rg reference       plain rg, output read through a pipe by subprocess.run
  our rg flags       the exact command line walk.py builds, read the same way
                     -> what --hidden, the -g excludes, --null, --max-columns... cost inside rg
  + --sort path      (grep) the same with rg sorting its output: rg then runs single-threaded
  + _run_rg loop     walk._run_rg: asyncio StreamReader.readline() and a decode per output line
  tool               the real tool (adds parsing, the display mapping, sorting, formatting)
  proposal           a sketch of a leaner walk.py, defined below: read the pipe in 256 KiB
                     chunks, count lines with bytes.count, split/decode only what is kept;
                     strip "./" instead of the generic display mapping; for list_files with a
                     name pattern, let rg filter with -g (the Python fnmatch stays as a
                     post-filter, so the semantics are unchanged)

Wall time is what the model waits for; CPU time (this process + rg, user+sys) is shown
too because it is far less sensitive to other load on the machine, and on 2 cores every
CPU millisecond Python spends while rg runs is taken from rg's two threads.

The proposal functions return the same lines as the tools (checked at start) whenever
the tool's own answer is deterministic (fewer than 10,000 matching lines).
"""

from __future__ import annotations

import argparse
import asyncio
import fnmatch
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

from make_tree import ensure_tree  # noqa: E402

from agent_lsp.agent.workspace import scan as walk  # noqa: E402
from agent_lsp.agent.context import ToolContext  # noqa: E402
from agent_lsp.agent.diskhost import DiskHost  # noqa: E402
from agent_lsp.agent.workspace.paths import Workspace  # noqa: E402
from agent_lsp.agent.settings import Settings  # noqa: E402
from agent_lsp.agent.tools.search import MAX_FILES, MAX_MATCHES, grep, list_files  # noqa: E402

# ---------------------------------------------------------------- the proposal


async def read_lines_chunked(stream: asyncio.StreamReader, keep: int) -> tuple[list[str], int]:
    """All lines counted with bytes.count on 256 KiB chunks; only the first `keep` split and decoded (at once)."""
    kept: list[bytes] = []
    count = 0
    tail = b""
    while chunk := await stream.read(1 << 18):
        count += chunk.count(b"\n")
        if len(kept) < keep:
            parts = (tail + chunk).split(b"\n")
            tail = parts.pop()
            kept.extend(parts[: keep - len(kept)])
    if tail:  # a last line without a newline
        count += 1
        if len(kept) < keep:
            kept.append(tail)
    if not kept:
        return [], count
    lines = b"\n".join(kept).decode("utf-8", "replace").split("\n")  # "\n" never ends a UTF-8 sequence
    return [ln[:-1] if ln.endswith("\r") else ln for ln in lines], count


async def run_rg_chunked(args: list[str], cwd: Path, keep: int) -> tuple[list[str], int, str, int]:
    """Like walk._run_rg, with read_lines_chunked instead of a readline() per line."""
    proc = await asyncio.create_subprocess_exec(
        *args, cwd=cwd, stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    assert proc.stdout is not None and proc.stderr is not None
    err_task = asyncio.create_task(proc.stderr.read())
    try:
        kept, count = await read_lines_chunked(proc.stdout, keep)
        stderr = (await err_task).decode("utf-8", "replace")
        code = await proc.wait()
    except BaseException:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()
        raise
    return kept, count, stderr, code


def _strip(ws: Workspace, p: str) -> str:
    if p.startswith("./"):
        return p[2:]
    return walk._display(ws, p) if p.startswith("/") else p


def _glob_is_plain(pattern: str) -> bool:
    """Patterns rg's -g matches exactly like fnmatch on the file name."""
    return not (pattern.startswith("!") or any(c in pattern for c in "/{}\\"))


async def proposed_list(ws: Workspace, base: Path, pattern: str, keep: int) -> walk.SearchResult:
    rg = walk.rg_binary()
    glob = ["-g", pattern] if pattern != "*" and _glob_is_plain(pattern) else []
    kept, _n, stderr, code = await run_rg_chunked(
        [rg, "--files", "--hidden", "--no-require-git", "--no-messages", *walk._RG_EXCLUDES, *glob,
         walk._rel_arg(ws, base)], ws.root, keep=10**9)
    if code not in (0, 1) and not kept:
        return walk.SearchResult([], 0, f"error: listing failed: {stderr.strip()[:300]}")
    names = [_strip(ws, line) for line in kept]
    if pattern != "*":
        names = [n for n in names if fnmatch.fnmatchcase(n.rsplit("/", 1)[-1], pattern)]
    names.sort()
    return walk.SearchResult(names[:keep], len(names))


async def proposed_grep(ws: Workspace, base: Path, regex: str, keep: int) -> walk.SearchResult:
    rg = walk.rg_binary()
    kept, count, stderr, code = await run_rg_chunked(
        [rg, "--line-number", "--no-heading", "--with-filename", "--null", "--color=never", "--hidden",
         "--no-require-git", "--no-messages", f"--max-columns={walk.MAX_COLUMNS}", "--max-columns-preview",
         *walk._RG_EXCLUDES, "-e", regex, "--", walk._rel_arg(ws, base)],
        ws.root, keep=max(keep * 50, 10_000))
    if code == 2 and not kept:
        return walk.SearchResult([], 0, f"error: search failed: {stderr.strip()[:400]}")
    rows = []
    for line in kept:
        path, sep, rest = line.partition("\0")
        num, sep2, text = rest.partition(":")
        if sep and sep2 and num.isdigit():
            rows.append((_strip(ws, path), int(num), text))
    rows.sort(key=lambda r: (r[0], r[1]))
    return walk.SearchResult([f"{p}:{n}: {t.strip()}" for p, n, t in rows[:keep]], count)


async def proposed_grep_2pass(ws: Workspace, base: Path, regex: str, keep: int) -> walk.SearchResult:
    """Deterministic variant: count per file (parallel, small output), then print the first files by path.

    The tool today keeps the first max(50*keep, 10000) lines in rg's (thread-dependent) output
    order and sorts those, so for a common word the lines shown change from run to run and are
    not the first ones by path. Here pass 1 (`rg --count`) gives the exact total and the files;
    pass 2 runs rg -n only on the first files in path order that hold `keep` matching lines.
    """
    rg = walk.rg_binary()
    common = ["--no-messages", "--color=never", "--null", "--with-filename"]
    kept, _n, stderr, code = await run_rg_chunked(
        [rg, "--count", *common, "--hidden", "--no-require-git", *walk._RG_EXCLUDES, "-e", regex, "--",
         walk._rel_arg(ws, base)], ws.root, keep=10**9)
    if code == 2 and not kept:
        return walk.SearchResult([], 0, f"error: search failed: {stderr.strip()[:400]}")
    per_file = []
    for line in kept:
        path, _sep, num = line.rpartition("\0")
        if num.isdigit():
            per_file.append((_strip(ws, path), path, int(num)))
    per_file.sort()
    total = sum(n for _d, _p, n in per_file)
    chosen, have = [], 0
    for _d, path, n in per_file:
        if have >= keep:
            break
        chosen.append(path)
        have += n
    if not chosen:
        return walk.SearchResult([], 0)
    kept, _n, stderr, code = await run_rg_chunked(
        [rg, "--line-number", "--no-heading", *common, f"--max-columns={walk.MAX_COLUMNS}",
         "--max-columns-preview", "-e", regex, "--", *chosen], ws.root, keep=10**9)
    rows = []
    for line in kept:
        path, sep, rest = line.partition("\0")
        num, sep2, text = rest.partition(":")
        if sep and sep2 and num.isdigit():
            rows.append((_strip(ws, path), int(num), text))
    rows.sort(key=lambda r: (r[0], r[1]))
    return walk.SearchResult([f"{p}:{n}: {t.strip()}" for p, n, t in rows[:keep]], total)


# ---------------------------------------------------------------- the bench


def _cpu() -> float:
    """CPU seconds of this process and of its finished children (rg) so far."""
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def python_side_only(ws: Workspace, root: Path, rg: str, flags_list, flags_grep, runs: int) -> None:
    """The Python work alone: rg's output captured once, then fed from memory to the real tool code
    (walk.list_paths / walk.grep_lines with _run_rg swapped for an in-memory replay of its readline
    loop) and to the proposals (run_rg_chunked swapped the same way). One thread, no subprocess:
    far steadier on a busy machine than the end-to-end timings."""
    captured: dict[tuple[str, ...], bytes] = {}

    def output(args: list[str]) -> bytes:
        key = tuple(args)
        if key not in captured:
            captured[key] = subprocess.run(args, cwd=root, capture_output=True).stdout
        return captured[key]

    def reader(args: list[str]) -> asyncio.StreamReader:
        r = asyncio.StreamReader(limit=1 << 20)
        r.feed_data(output(args))
        r.feed_eof()
        return r

    async def replay_readline(args, cwd, keep):  # the loop of walk._run_rg, minus the process
        stream, kept, count = reader(args), [], 0
        while True:
            raw = await stream.readline()
            if not raw:
                break
            count += 1
            if len(kept) < keep:
                kept.append(raw.decode("utf-8", "replace").rstrip("\r\n"))
        return kept, count, "", 0

    async def replay_chunked(args, cwd, keep):
        kept, count = await read_lines_chunked(reader(args), keep)
        return kept, count, "", 0

    g = globals()
    real_run, real_chunked = walk._run_rg, g["run_rg_chunked"]
    walk._run_rg, g["run_rg_chunked"] = replay_readline, replay_chunked
    loop = asyncio.new_event_loop()
    try:
        cases = {
            "list_files '*' (14,900 paths)": {
                "tool (readline loop + display + sort)": lambda: walk.list_paths(ws, root, "*", MAX_FILES),
                "proposal (chunked + strip + sort)": lambda: proposed_list(ws, root, "*", MAX_FILES),
            },
            "list_files '*.py'": {
                "tool (14,900 paths + fnmatch)": lambda: walk.list_paths(ws, root, "*.py", MAX_FILES),
                "proposal (rg -g: 3,646 paths + fnmatch)": lambda: proposed_list(ws, root, "*.py", MAX_FILES),
            },
            "grep 'return' (142,750 lines)": {
                "tool (readline loop, keep 10,000)": lambda: walk.grep_lines(ws, root, "return", MAX_MATCHES),
                "proposal (chunked, keep 10,000)": lambda: proposed_grep(ws, root, "return", MAX_MATCHES),
            },
        }
        refs = {"list_files '*' (14,900 paths)": [rg, "--files"], "list_files '*.py'": [rg, "--files", "-g", "*.py"],
                "grep 'return' (142,750 lines)": [rg, "-n", "return", "."]}
        print("Python side only (rg output replayed from memory), ms; rg's own wall time for scale")
        for title, variants in cases.items():
            t_rg = []
            for _ in range(5):
                t0 = time.perf_counter()
                subprocess.run(refs[title], cwd=root, capture_output=True)
                t_rg.append(time.perf_counter() - t0)
            ts = {n: [] for n in variants}
            for fn in variants.values():
                loop.run_until_complete(fn())
            for _ in range(runs):
                for n, fn in variants.items():
                    t0 = time.perf_counter()
                    loop.run_until_complete(fn())
                    ts[n].append(time.perf_counter() - t0)
            rg_m = statistics.median(t_rg)
            print(f"  {title:<44}{'best':>8}{'median':>9}{'% of rg wall':>14}")
            print(f"    {'rg reference (whole run, median of 5)':<42}{min(t_rg) * 1000:>8.1f}{rg_m * 1000:>9.1f}")
            for n, t in ts.items():
                print(f"    {n:<42}{min(t) * 1000:>8.1f}{statistics.median(t) * 1000:>9.1f}"
                      f"{statistics.median(t) / rg_m * 100:>13.0f}%")
        print()
    finally:
        walk._run_rg, g["run_rg_chunked"] = real_run, real_chunked
        loop.close()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=11)
    a = ap.parse_args(argv)
    root = ensure_tree()
    ws = Workspace([root])
    ctx = ToolContext(workspace=ws, host=DiskHost(), settings=Settings())
    rg = walk.rg_binary()
    loop = asyncio.new_event_loop()
    run = loop.run_until_complete

    def sync(args):
        return lambda: subprocess.run(args, cwd=root, stdin=subprocess.DEVNULL, capture_output=True)

    def flags_list(*extra):
        return [rg, "--files", "--hidden", "--no-require-git", "--no-messages", *walk._RG_EXCLUDES, *extra, "."]

    def flags_grep(regex, *extra):
        return [rg, *extra, "--line-number", "--no-heading", "--with-filename", "--null", "--color=never", "--hidden",
                "--no-require-git", "--no-messages", f"--max-columns={walk.MAX_COLUMNS}", "--max-columns-preview",
                *walk._RG_EXCLUDES, "-e", regex, "--", "."]

    groups = {
        "list_files '*'": {
            "rg reference: rg --files": sync([rg, "--files"]),
            "our rg flags": sync(flags_list()),
            "+ _run_rg loop": lambda: run(walk._run_rg(flags_list(), root, 10**9)),
            "tool list_files": lambda: run(list_files(ctx, ".", "*")),
            "proposal": lambda: run(proposed_list(ws, root, "*", MAX_FILES)),
        },
        "list_files '*.py'": {
            "rg reference: rg --files -g '*.py'": sync([rg, "--files", "-g", "*.py"]),
            "tool list_files": lambda: run(list_files(ctx, ".", "*.py")),
            "proposal": lambda: run(proposed_list(ws, root, "*.py", MAX_FILES)),
        },
        "grep 'return' (143k lines)": {
            "rg reference: rg -n return .": sync([rg, "-n", "return", "."]),
            "our rg flags": sync(flags_grep("return")),
            "our rg flags + --sort path": sync(flags_grep("return", "--sort", "path")),
            "+ _run_rg loop": lambda: run(walk._run_rg(flags_grep("return"), root, 10_000)),
            "tool grep": lambda: run(grep(ctx, "return")),
            "proposal (chunked reader)": lambda: run(proposed_grep(ws, root, "return", MAX_MATCHES)),
            "proposal 2-pass (deterministic)": lambda: run(proposed_grep_2pass(ws, root, "return", MAX_MATCHES)),
        },
        "grep rare literal": {
            "rg reference: rg -n ZANZIBAR_QUOTA_7F3A .": sync([rg, "-n", "ZANZIBAR_QUOTA_7F3A", "."]),
            "tool grep": lambda: run(grep(ctx, "ZANZIBAR_QUOTA_7F3A")),
            "proposal (chunked reader)": lambda: run(proposed_grep(ws, root, "ZANZIBAR_QUOTA_7F3A", MAX_MATCHES)),
            "proposal 2-pass (deterministic)": lambda: run(proposed_grep_2pass(ws, root, "ZANZIBAR_QUOTA_7F3A", MAX_MATCHES)),
        },
    }

    # the proposal must give the very same answers as the tools
    for pattern in ("*", "*.py"):
        want = run(walk.list_paths(ws, root, pattern, MAX_FILES))
        got = run(proposed_list(ws, root, pattern, MAX_FILES))
        assert (want.lines, want.total) == (got.lines, got.total), f"list {pattern} differs"
    for regex in ("ZANZIBAR_QUOTA_7F3A", "TODO|FIXME|HACK", "qqxzy_never_there"):  # < 10,000 matches
        want = run(walk.grep_lines(ws, root, regex, MAX_MATCHES))
        for proposal in (proposed_grep, proposed_grep_2pass):
            got = run(proposal(ws, root, regex, MAX_MATCHES))
            assert (want.lines, want.total) == (got.lines, got.total), f"grep {regex} differs ({proposal.__name__})"
    # above 10,000 matching lines the tool's answer depends on rg's thread timing (see proposed_grep_2pass)
    answers = {tuple(run(walk.grep_lines(ws, root, "return", MAX_MATCHES)).lines) for _ in range(5)}
    two_pass = {tuple(run(proposed_grep_2pass(ws, root, "return", MAX_MATCHES)).lines) for _ in range(5)}
    print(f"grep 'return' 5 times: the tool gave {len(answers)} different answer(s), the 2-pass proposal {len(two_pass)}")

    python_side_only(ws, root, rg, flags_list, flags_grep, a.runs)
    print(f"tree {root}, runs={a.runs} (+1 warm-up), interleaved; {time.strftime('%Y-%m-%d %H:%M')}; ms; load {os.getloadavg()[0]:.1f}\n")
    for title, variants in groups.items():
        ts: dict[str, list[float]] = {n: [] for n in variants}
        cpu: dict[str, list[float]] = {n: [] for n in variants}
        for fn in variants.values():
            fn()
        for _ in range(a.runs):
            for n, fn in variants.items():
                c0 = _cpu()
                t0 = time.perf_counter()
                fn()
                ts[n].append(time.perf_counter() - t0)
                cpu[n].append(_cpu() - c0)
        ref = next(iter(ts))
        ref_b, ref_m, ref_c = min(ts[ref]), statistics.median(ts[ref]), statistics.median(cpu[ref])
        print(f"{title:<42}{'best':>8}{'median':>9}{'/rg best':>10}{'/rg med':>9}{'cpu med':>9}{'/rg':>7}")
        for n, t in ts.items():
            b, m, c = min(t), statistics.median(t), statistics.median(cpu[n])
            print(f"  {n:<40}{b * 1000:>8.1f}{m * 1000:>9.1f}{b / ref_b:>9.2f}x{m / ref_m:>8.2f}x"
                  f"{c * 1000:>9.1f}{c / ref_c:>6.2f}x")
        print()
    loop.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
