"""What counts as a new problem, how it reads for the model, and the agent's own servers' life cycle."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

from agent_lsp.agent.diagnostics.problems import LineMap, Problem, Target, new_problems, problem, problems_text
from agent_lsp.agent.host import FileChange
from agent_lsp.lspclient.pool import ServerPool, matches

FLAKY = str(Path(__file__).parent / "servers" / "flaky_lsp.py")


def p(line: int, msg: str = "m", sev: int = 1, source: str = "s", code: str = "c") -> Problem:
    return Problem(line, sev, source, code, msg)


def write(before: str, after: str) -> LineMap:
    return LineMap.of(FileChange("write_file", Path("f"), "f", before, after))


def edit(before: str, old: str, new: str) -> LineMap:
    i = before.index(old)
    after = before[:i] + new + before[i + len(old):]
    return LineMap.of(FileChange("edit_file", Path("f"), "f", before, after, (i, i + len(old)), new))


def test_lines_move_with_the_edit_and_edited_lines_map_to_the_new_ones():
    text = "a\nb\nc\nd\n"
    m = edit(text, "b\n", "b1\nb2\nb3\n")
    assert [m.where(i) for i in range(4)] == [(0, 0), (1, 3), (4, 4), (5, 5)]
    m = write(text, "a\nc\nd\n")  # b deleted: c and d move up
    assert m.where(2) == (1, 1) and m.where(3) == (2, 2) and m.where(0) == (0, 0)
    m = edit(text, "a\n", "a\nnew\n")  # an insertion after a line does not own the next one
    assert m.where(1) == (2, 2)


def test_only_unexplained_problems_are_new():
    before = [p(3, "x"), p(3, "x"), p(5, "y")]
    moved = edit("0\n1\n2\n3\n4\n5\n", "0\n", "0\nzero\n")
    after = [p(4, "x"), p(4, "x"), p(4, "x"), p(6, "y"), p(3, "y")]
    # two of the three x are the old ones moved; y on line 3 is not where the old y went
    assert new_problems(before, after, moved) == [p(4, "x"), p(3, "y")]


def test_how_new_problems_read_errors_first_capped_info_left_out():
    fresh = [p(i, f"w{i}", sev=2) for i in range(15)] + [p(i, f"e{i}") for i in range(10)] + [p(1, "hint", sev=4)]
    text = problems_text("a.py", fresh)
    lines = text.split("\n")
    assert lines[0] == "New problems in a.py (10 errors, 15 warnings):"
    assert lines[1] == "  line 1: error [s c] e0" and lines[10] == "  line 10: error [s c] e9"
    assert lines[11].startswith("  line 1: warning") and len(lines) == 1 + 20 + 1
    assert lines[-1] == "  ...and 5 more" and "hint" not in text
    assert problems_text("a.py", [p(0, "hint", sev=3)]) == "No new problems in a.py."


def test_lsp_diagnostics_are_read_leniently():
    assert problem({"range": {"start": {"line": 2, "character": 0}}, "message": "a\n\n  b", "code": {"value": 7}}) == \
        Problem(2, 1, "", "7", "a b")
    assert problem({"message": "no range"}) is None and problem("junk") is None


def test_the_target_follows_the_edits():
    t = Target.of(Path("f"), {"range": {"start": {"line": 1, "character": 0}}, "message": "m", "source": "s", "code": "c"})
    t.follow(edit("a\nb\n", "a\n", "a\nnew\n"))
    assert t.lines == (2, 2)
    assert "still reported at line 3" in t.check([p(2, "m")]) and t.gone is False
    assert "no longer reported" in t.check([p(2, "other")]) and t.gone is True


def test_globs():
    root = Path("/w")
    assert matches("*.py", root, root / "a" / "b.py") and not matches("*.py", root, root / "b.pyi")
    assert matches("src/*.ts", root, root / "src" / "x.ts") and not matches("src/*.ts", root, root / "lib" / "x.ts")
    assert matches("src/**/*.ts", root, root / "src" / "a" / "x.ts")


async def test_a_dead_server_is_restarted_once_then_left_alone(tmp_path, monkeypatch):
    log = tmp_path / "flaky.log"
    monkeypatch.setenv("FLAKY_LOG", str(log))
    notes: list[str] = []
    pool = ServerPool(lambda: {"*.py": [sys.executable, FLAKY]}, notes.append)
    f = tmp_path / "a.py"
    try:
        got = await pool.diagnostics(tmp_path, f, "ok\nBAD\n", 10)
        assert [(d["range"]["start"]["line"], d["code"], d["source"]) for d in got] == [(1, "B1", "flaky")]
        # it dies on this text; restarted once, the new one answers for the same text
        got = await pool.diagnostics(tmp_path, f, "BAD DIE\n", 10)
        assert [d["range"]["start"]["line"] for d in got] == [0]
        assert log.read_text().count("start") == 2 and notes == []
        # it dies again: one note, and it is not started a third time
        assert await pool.diagnostics(tmp_path, f, "DIE_ALWAYS\n", 10) is None
        assert await pool.diagnostics(tmp_path, f, "BAD\n", 10) is None
        assert log.read_text().count("start") == 2
        assert len(notes) == 1 and "died again" in notes[0]
    finally:
        await pool.aclose()


async def test_servers_stop_with_the_pool(tmp_path, monkeypatch):
    monkeypatch.setenv("FLAKY_LOG", str(tmp_path / "flaky.log"))
    pool = ServerPool(lambda: {"*.py": [sys.executable, FLAKY]}, lambda n: None)
    assert await pool.diagnostics(tmp_path, tmp_path / "a.py", "BAD\n", 10)
    (slot,) = pool.slots.values()
    proc = slot.conn.client._server
    await pool.aclose()
    assert proc.returncode is not None


async def test_an_editor_seen_to_be_slow_gets_a_longer_quiet_period(tmp_path):
    """A linter that shows an edit's problem 0.9 s later: once that is seen, unchanged answers are awaited longer."""
    import time as _time

    from agent_lsp.agent.context import ToolContext
    from agent_lsp.agent.diskhost import DiskHost
    from agent_lsp.agent.workspace.paths import Workspace
    from agent_lsp.agent.settings import Settings

    class Slow(DiskHost):
        def __init__(self):
            self.at, self.after, self.before = 0.0, [], []

        async def diagnostics(self, path):
            return self.after if _time.monotonic() - self.at >= 0.9 else self.before

    host = Slow()
    ctx = ToolContext(workspace=Workspace([tmp_path]), host=host, settings=Settings())
    d, f = ctx.diagnostics, tmp_path / "f"
    err = {"range": {"start": {"line": 0, "character": 0}}, "message": "x"}
    host.at, host.after = _time.monotonic(), [err]
    first = await d.editor_settled(f, [], 3)
    assert first == []  # the first time, QUIET (0.6 s) passed before the linter spoke
    d.remember(f, first)
    await asyncio.sleep(0.5)
    d.check_late(f, await d.editor(f, 1))  # the next edit's baseline shows what came late
    assert d.quiet() >= 1.2
    host.at, host.before, host.after = _time.monotonic(), [], [err]
    got = await d.editor_settled(f, [], 3)  # now it waits long enough
    assert got and got[0].message == "x" and 0.9 <= d.lags[-1] < 1.3
    assert d.quiet() >= 1.4
