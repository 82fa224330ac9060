"""Line diffs and the LSP edits built on them: always exact, small where the change is small, fast on big files.

Seeded random texts (reproducible): CRLF, lone CR, no final newline, astral characters,
and the characters str.splitlines breaks at but LSP does not (form feed, U+2028), in all
three position encodings, through each way linediff can answer (difflib, git, no git).
"""

from __future__ import annotations

import random
import time
from pathlib import Path

import pytest
from lsprotocol import types

from agent_lsp.agent.workspace import linediff
from agent_lsp.agent.host import FileChange
from agent_lsp.server.edits import apply_edits, line_starts, minimal_edits

ENCODINGS = [e.value for e in (types.PositionEncodingKind.Utf16, types.PositionEncodingKind.Utf8,
                               types.PositionEncodingKind.Utf32)]
PIECES = ["x", "def f():", "    return 1", "é", "😀", "𝄞 music", "\t", "\x0c", "\u2028", "", "a😀b", "  # 注释"]
EOLS = ["\n", "\r\n", "\r"]


@pytest.fixture(params=["difflib", "git", "no-git"])
def path(request, monkeypatch):
    """Which road linediff takes: difflib for small inputs, git above that, or git missing."""
    if request.param != "difflib":
        monkeypatch.setattr(linediff, "SMALL", -1)
    if request.param == "no-git":
        monkeypatch.setattr(linediff.shutil, "which", lambda name: None)
    if request.param == "git":  # git's answer must be used, never quietly replaced by difflib's

        def no_difflib(a, b):
            raise AssertionError("git's answer was not used")

        monkeypatch.setattr(linediff, "_difflib", no_difflib)
    return request.param


def random_line(rnd: random.Random) -> str:
    return "".join(rnd.choice(PIECES) for _ in range(rnd.randrange(0, 4)))


def random_text(rnd: random.Random, lines: int) -> str:
    eol = rnd.choice(EOLS + ["mixed"])
    out = [random_line(rnd) + (rnd.choice(EOLS) if eol == "mixed" else eol) for _ in range(lines)]
    text = "".join(out)
    if text and rnd.random() < 0.4:
        text = text.rstrip("\r\n")  # no final newline
    return text


def mutate(rnd: random.Random, text: str) -> str:
    lines = text.splitlines(keepends=True)
    for _ in range(rnd.randrange(1, 6)):
        i = rnd.randrange(len(lines) + 1)
        op = rnd.choice("idrce")
        if op == "i":
            lines[i:i] = [random_line(rnd) + rnd.choice(EOLS) for _ in range(rnd.randrange(1, 4))]
        elif op == "d":
            del lines[i : i + rnd.randrange(1, 4)]
        elif op == "r" and i < len(lines):
            lines[i] = random_line(rnd) + rnd.choice(EOLS)
        elif op == "c" and i < len(lines):  # only the line ending changes
            lines[i] = lines[i].rstrip("\r\n") + rnd.choice(EOLS + [""])
        elif op == "e":  # the end of the file: drop or add the final newline
            if lines:
                lines[-1] = lines[-1].rstrip("\r\n") if lines[-1].endswith(("\n", "\r")) else lines[-1] + "\n"
    return "".join(lines)


def check_opcodes(a: list[str], b: list[str], ops) -> None:
    i = j = 0
    rebuilt: list[str] = []
    for tag, i1, i2, j1, j2 in ops:
        assert (i1, j1) == (i, j), ops
        assert tag in ("equal", "replace", "delete", "insert"), ops
        if tag == "equal":
            assert a[i1:i2] == b[j1:j2] and i2 > i1, ops
        elif tag == "replace":
            assert i2 > i1 and j2 > j1, ops
        elif tag == "delete":
            assert i2 > i1 and j2 == j1, ops
        else:
            assert i2 == i1 and j2 > j1, ops
        rebuilt += b[j1:j2]
        i, j = i2, j2
    assert (i, j) == (len(a), len(b)) and rebuilt == b


def test_opcodes_cover_both_sequences_in_order(path):
    rnd = random.Random(20261201)
    for _ in range(400):
        a = random_text(rnd, rnd.randrange(0, 30)).splitlines(keepends=True)
        b = mutate(rnd, "".join(a)).splitlines(keepends=True)
        check_opcodes(a, b, linediff.opcodes(a, b))


def test_opcodes_of_any_strings(path):
    """Not only lines: any sequence of strings, with newlines anywhere in them."""
    rnd = random.Random(5)
    for _ in range(200):
        a = [rnd.choice(["a", "b\n", "\n", "c\nd", "", "😀"]) for _ in range(rnd.randrange(0, 25))]
        b = list(a)
        for _ in range(rnd.randrange(0, 4)):
            k = rnd.randrange(len(b) + 1)
            b[k : k + rnd.randrange(0, 3)] = [rnd.choice(["z", "b\n", "q\r"]) for _ in range(rnd.randrange(0, 3))]
        check_opcodes(a, b, linediff.opcodes(a, b))
        check_opcodes(a, b, linediff.opcodes(tuple(a), iter_as_seq(b)))


def iter_as_seq(items: list[str]):
    """A Sequence that is neither a list nor a tuple."""
    import collections

    class Seq(collections.abc.Sequence):
        def __len__(self):
            return len(items)

        def __getitem__(self, k):
            return items[k]

    return Seq()


@pytest.mark.parametrize("encoding", ENCODINGS)
def test_edits_turn_before_into_after_exactly(path, encoding):
    rnd = random.Random(hash(encoding) % 1000 + 17)
    for _ in range(300):
        before = random_text(rnd, rnd.randrange(0, 30))
        after = mutate(rnd, before) if rnd.random() < 0.9 else random_text(rnd, rnd.randrange(0, 30))
        edits = minimal_edits(FileChange("write_file", Path("f.txt"), "f.txt", before, after), encoding)
        assert apply_edits(before, edits, encoding) == after, (before, after, edits)
        starts = [(e[0].start.line, e[0].start.character) for e in edits]
        ends = [(e[0].end.line, e[0].end.character) for e in edits]
        assert all(ends[k] <= starts[k + 1] for k in range(len(edits) - 1)), "overlapping or out of order"
        if before == after and before:  # (an empty file gets its one empty insert, as before)
            assert edits == []


def test_line_starts_follow_lsp():
    assert line_starts("a\nb\r\nc\rd\x0ce\u2028") == [0, 2, 5, 7]
    assert line_starts("") == [0]
    assert line_starts("\r\r\n\n") == [0, 1, 3, 4]


def big_file(rnd: random.Random, lines: int) -> list[str]:
    words = "alpha beta gamma delta return if else for while def class self value index".split()
    return ["    " + " ".join(rnd.choice(words) for _ in range(rnd.randrange(2, 9))) + "\n" for _ in range(lines)]


def test_a_few_changes_in_a_big_file_are_a_few_small_edits():
    rnd = random.Random(11)
    before = big_file(rnd, 20_000)
    after = list(before)
    changed = sorted(rnd.sample(range(len(after)), 20))
    for i in changed:
        after[i] = "    changed()\n"
    t0 = time.perf_counter()
    edits = minimal_edits(FileChange("write_file", Path("f.py"), "f.py", "".join(before), "".join(after)), "utf-16")
    took = time.perf_counter() - t0
    assert [e[0].start.line for e in edits] == changed
    assert all(e[0].end.line == e[0].start.line + 1 and e[1] == "    changed()\n" for e in edits)
    assert took < 5, f"{took:.1f} s for 20,000 lines (difflib took ~60 s)"


def test_past_the_size_bound_one_replacement(monkeypatch):
    monkeypatch.setattr(linediff, "MAX_LINES", 100)
    monkeypatch.setattr(linediff, "SMALL", 0)
    a = [f"{i}\n" for i in range(200)]
    b = a[:10] + ["x\n"] + a[11:190] + ["y\n"] + a[191:]
    ops = linediff.opcodes(a, b)
    check_opcodes(a, b, ops)
    assert ops == [("equal", 0, 10, 0, 10), ("replace", 10, 191, 10, 191), ("equal", 191, 200, 191, 200)]


def test_git_failing_falls_back(monkeypatch):
    """A git that answers nonsense is not believed: difflib, or past its bound one replacement."""
    monkeypatch.setattr(linediff, "SMALL", 0)
    monkeypatch.setattr(linediff, "_from_hunks", lambda out, n, m: None)
    a = [f"{i}\n" for i in range(300)]
    b = a[:5] + ["new\n"] + a[6:290] + a[291:]
    minimal = [("equal", 0, 5, 0, 5), ("replace", 5, 6, 5, 6), ("equal", 6, 290, 6, 290),
               ("delete", 290, 291, 290, 290), ("equal", 291, 300, 290, 299)]
    assert linediff.opcodes(a, b) == minimal
    monkeypatch.setattr(linediff, "DIFFLIB_MAX", 0)
    assert linediff.opcodes(a, b) == [("equal", 0, 5, 0, 5), ("replace", 5, 291, 5, 290), ("equal", 291, 300, 290, 299)]
