"""Line diffs for edits and previews, in time about linear in the size of the texts.

difflib's SequenceMatcher is quadratic on big files (187 s for a 30,000-line rewrite).
Small inputs go to difflib as they are (milliseconds, and its output is what people
expect). Otherwise the common prefix and suffix are cut off first (the usual edit
touches a small window), a small middle goes to difflib, and a big middle goes to
`git diff --no-index --histogram`: git's C xdiff is near-linear, and as a child process
it holds neither the GIL nor the event loop, where a C extension (pygit2 was measured)
holds the GIL for the whole diff and stalls the language server's answers. Without
git, or past a size bound, the middle becomes one replacement: correct, only less
minimal, and never a long wait.
"""

from __future__ import annotations

import difflib
import os
import re
import shutil
import subprocess
import tempfile
from operator import itemgetter
from typing import Sequence

from .safegit import HARDEN_ARGS, git_env

Opcode = tuple[str, int, int, int, int]

SMALL = 250_000  # len(a) * len(b) below which difflib answers in a few ms
DIFFLIB_MAX = 1_000_000  # without git: difflib up to ~1,000 x 1,000 lines (< 0.3 s), else one replacement
MAX_LINES = 2_000_000  # a middle longer than this (both sides) is one replacement rather than a wait
GIT_TIMEOUT = 30.0  # seconds; git takes ~0.3 s for a 100,000-line rewrite
_STEPS = (1024, 32, 1)  # block sizes for the prefix/suffix scan
_HUNK = re.compile(rb"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@", re.M)
_GIT_ENV = {"GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull, "LC_ALL": "C"}


def opcodes(a: Sequence[str], b: Sequence[str]) -> list[Opcode]:
    """SequenceMatcher-style opcodes ('equal', 'replace', 'delete', 'insert') turning a into b.

    They cover both sequences in order, like `difflib.SequenceMatcher.get_opcodes()`.
    """
    a = a if isinstance(a, (list, tuple)) else list(a)
    b = b if isinstance(b, (list, tuple)) else list(b)
    n, m = len(a), len(b)
    if n * m <= SMALL:
        return _difflib(a, b)  # exactly difflib's answer where difflib is quick
    lo = _common_prefix(a, b)
    hi = _common_suffix(a, b, lo)
    ops: list[Opcode] = []
    if lo:
        ops.append(("equal", 0, lo, 0, lo))
    for tag, i1, i2, j1, j2 in _middle(a[lo : n - hi], b[lo : m - hi]):
        ops.append((tag, i1 + lo, i2 + lo, j1 + lo, j2 + lo))
    if hi:
        ops.append(("equal", n - hi, n, m - hi, m))
    return ops


def _common_prefix(a: Sequence[str], b: Sequence[str]) -> int:
    """Length of the common prefix; whole blocks are compared in C before single lines."""
    limit, i = min(len(a), len(b)), 0
    for step in _STEPS:
        while i + step <= limit and a[i : i + step] == b[i : i + step]:
            i += step
    return i


def _common_suffix(a: Sequence[str], b: Sequence[str], prefix: int) -> int:
    n, m = len(a), len(b)
    limit, k = min(n, m) - prefix, 0
    for step in _STEPS:
        while k + step <= limit and a[n - k - step : n - k] == b[m - k - step : m - k]:
            k += step
    return k


def _middle(a: Sequence[str], b: Sequence[str]) -> list[Opcode]:
    n, m = len(a), len(b)
    if not n and not m:
        return []
    if not n:
        return [("insert", 0, 0, 0, m)]
    if not m:
        return [("delete", 0, n, 0, 0)]
    if n * m <= SMALL:
        return _difflib(a, b)
    if n + m > MAX_LINES:
        return [("replace", 0, n, 0, m)]
    ops = _git(a, b)
    if ops is not None:
        return ops
    return _difflib(a, b) if n * m <= DIFFLIB_MAX else [("replace", 0, n, 0, m)]


def _difflib(a: Sequence[str], b: Sequence[str]) -> list[Opcode]:
    return difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes()


def _aligned(lines: Sequence[str], joined: str) -> bool:
    """Does git split `joined` ("".join(lines)) into exactly these lines: one \\n each, at
    the end, except perhaps the last (never empty)? Counted in C, not line by line."""
    try:
        lasts = "".join(map(itemgetter(-1), lines))
    except IndexError:  # an empty string: no line for git
        return False
    ends = lasts.count("\n")
    if ends != joined.count("\n"):
        return False  # a newline inside a line
    return ends == len(lines) or (ends == len(lines) - 1 and lasts[-1] != "\n")


def _git_inputs(a: Sequence[str], b: Sequence[str]) -> tuple[bytes, bytes]:
    """The two sides as git will read them: the text itself when git's lines are ours,
    else one number per distinct line (lone CRs, form feeds, any sequence of strings)."""
    ja, jb = "".join(a), "".join(b)
    if _aligned(a, ja) and _aligned(b, jb):
        return ja.encode("utf-8", "surrogatepass"), jb.encode("utf-8", "surrogatepass")
    ids = {line: i for i, line in enumerate(set(a).union(b))}
    get = ids.__getitem__
    return (
        ("\n".join(map(str, map(get, a))) + "\n").encode(),
        ("\n".join(map(str, map(get, b))) + "\n").encode(),
    )


def _git(a: Sequence[str], b: Sequence[str]) -> list[Opcode] | None:
    """Opcodes from `git diff --no-index --histogram -U0`; None when git is missing or fails."""
    git = shutil.which("git")
    if git is None:
        return None
    left, right = _git_inputs(a, b)
    try:
        with tempfile.TemporaryDirectory(prefix="agent-lsp-diff-") as tmp:
            for name, data in (("a", left), ("b", right)):
                with open(os.path.join(tmp, name), "wb") as f:
                    f.write(data)
            # a scratch folder inside a repository (TMPDIR there) must not pick up its config
            env = git_env({**_GIT_ENV, "GIT_CEILING_DIRECTORIES": os.path.dirname(tmp), "GIT_DIR": os.devnull})
            proc = subprocess.run(
                [git, *HARDEN_ARGS, "diff", "--no-index", "--no-color", "--no-ext-diff", "--no-textconv", "--text",
                 "--histogram", "-U0", "a", "b"],
                cwd=tmp, env=env, stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, timeout=GIT_TIMEOUT,
            )
    except (OSError, subprocess.SubprocessError):
        return None
    if proc.returncode not in (0, 1):
        return None
    return _from_hunks(proc.stdout, len(a), len(b))


def _from_hunks(out: bytes, n: int, m: int) -> list[Opcode] | None:
    """Hunk headers (`@@ -s,c +s,c @@`, 1-based; an empty side names the line before) to opcodes."""
    ops: list[Opcode] = []
    i = j = 0
    for h in _HUNK.finditer(out):
        s1, c1 = int(h[1]), int(h[2] if h[2] is not None else 1)
        s2, c2 = int(h[3]), int(h[4] if h[4] is not None else 1)
        i1 = s1 - 1 if c1 else s1
        j1 = s2 - 1 if c2 else s2
        if i1 - i != j1 - j or i1 < i:
            return None  # not what we asked for: don't guess
        if i1 > i:
            ops.append(("equal", i, i1, j, j1))
        tag = "replace" if c1 and c2 else ("delete" if c1 else "insert")
        ops.append((tag, i1, i1 + c1, j1, j1 + c2))
        i, j = i1 + c1, j1 + c2
    if n - i != m - j or i > n:
        return None
    if i < n:
        ops.append(("equal", i, n, j, m))
    return ops
