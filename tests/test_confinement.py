"""Path confinement: every way out of the workspace is refused, for every file tool alike."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.helpers import call_tool, make_ctx

SECRET = "TOP-SECRET-4b1d"


def snapshot(*dirs: Path) -> dict[str, bytes | str]:
    """Every file and link under dirs with its content (or link target)."""
    out: dict[str, bytes | str] = {}
    for d in dirs:
        for root, subdirs, files in os.walk(d):
            for name in files + subdirs:
                p = Path(root) / name
                if p.is_symlink():
                    out[str(p)] = "-> " + os.readlink(p)
                elif p.is_file():
                    out[str(p)] = p.read_bytes()
                else:
                    out[str(p)] = "dir"
    return out


@pytest.fixture
def jail(tmp_path: Path, workspace: Path) -> dict[str, Path]:
    """ws/ with links pointing out; outside/ and the prefix-sharing sibling ws2/ hold secrets."""
    outside = tmp_path / "outside"
    sibling = tmp_path / (workspace.name + "2")  # /…/ws2 next to /…/ws
    for d in (outside, sibling):
        d.mkdir()
        (d / "secret.txt").write_text(f"{SECRET}\n")
    (workspace / "inside.txt").write_text("inside\n")
    (workspace / "linkdir").symlink_to(outside, target_is_directory=True)
    (workspace / "link.txt").symlink_to(outside / "secret.txt")
    (workspace / "dangling.txt").symlink_to(outside / "created-through-link.txt")
    (workspace / "inlink.txt").symlink_to(workspace / "inside.txt")
    return {"ws": workspace, "outside": outside, "sibling": sibling}


ESCAPES = {
    "dotdot": lambda j: "../outside/secret.txt",
    "dotdot_deep": lambda j: "sub/../../outside/secret.txt",
    "absolute": lambda j: str(j["outside"] / "secret.txt"),
    "symlinked_dir": lambda j: "linkdir/secret.txt",
    "symlinked_file": lambda j: "link.txt",
    "sibling_prefix_relative": lambda j: f"../{j['sibling'].name}/secret.txt",
    "sibling_prefix_absolute": lambda j: str(j["sibling"] / "secret.txt"),
    "root_itself": lambda j: "/",
    "home": lambda j: "~/.bashrc",
}

WRITE_ESCAPES = {
    **ESCAPES,
    "new_file_in_symlinked_dir": lambda j: "linkdir/new.txt",
    "dangling_link_pointing_out": lambda j: "dangling.txt",
    "new_file_in_sibling": lambda j: str(j["sibling"] / "new.txt"),
}


def tool_args(tool: str, path: str) -> dict:
    return {
        "read_file": {"path": path},
        "list_files": {"path": path},
        "grep": {"regex": "SECRET", "path": path},
        "write_file": {"path": path, "content": "PWNED"},
        "edit_file": {"path": path, "old": SECRET, "new": "PWNED"},
    }[tool]


def assert_refused(out: str, path: str) -> None:
    assert out.startswith("error: path escapes the workspace"), out
    assert path in out
    assert SECRET not in out and "PWNED" not in out


@pytest.mark.parametrize("kind", sorted(ESCAPES))
@pytest.mark.parametrize("tool", ["read_file", "list_files", "grep", "edit_file"])
async def test_escape_is_refused(jail, tool, kind, tmp_path):
    before = snapshot(tmp_path)
    path = ESCAPES[kind](jail)
    out = await call_tool(make_ctx(jail["ws"]), tool, tool_args(tool, path))
    assert_refused(out, path)
    assert snapshot(tmp_path) == before, "something outside the workspace changed"


@pytest.mark.parametrize("kind", sorted(WRITE_ESCAPES))
async def test_write_escape_is_refused_and_nothing_is_written(jail, kind, tmp_path):
    before = snapshot(tmp_path)
    path = WRITE_ESCAPES[kind](jail)
    out = await call_tool(make_ctx(jail["ws"]), "write_file", tool_args("write_file", path))
    assert_refused(out, path)
    assert snapshot(tmp_path) == before
    assert not (jail["outside"] / "created-through-link.txt").exists()


async def test_the_refusal_tells_the_model_what_to_do(jail):
    out = await call_tool(make_ctx(jail["ws"]), "read_file", {"path": "../outside/secret.txt"})
    assert "relative to the workspace root" in out
    assert str(jail["ws"].resolve()) in out


@pytest.mark.parametrize("no_rg", [False, True], ids=["rg", "python"])
async def test_listing_and_grep_do_not_follow_links_out(jail, monkeypatch, no_rg):
    if no_rg:
        monkeypatch.setenv("AGENT_LSP_NO_RG", "1")
    ctx = make_ctx(jail["ws"])
    listed = await call_tool(ctx, "list_files", {})
    assert listed.splitlines() == ["inside.txt"]
    assert await call_tool(ctx, "grep", {"regex": "SECRET|inside"}) == "inside.txt:1: inside"


async def test_inside_paths_in_every_spelling_are_allowed(jail):
    ws = jail["ws"]
    (ws / "sub").mkdir()
    ctx = make_ctx(ws)
    for path in ("inside.txt", "./inside.txt", "sub/../inside.txt", str(ws / "inside.txt"), "inlink.txt"):
        assert await call_tool(ctx, "read_file", {"path": path}) == "1: inside", path
    assert (await call_tool(ctx, "write_file", {"path": str(ws / "sub" / "w.txt"), "content": "ok"})).startswith("wrote")
    assert (ws / "sub" / "w.txt").read_text() == "ok"
    assert "inside.txt" in await call_tool(ctx, "list_files", {"path": str(ws)})
    # a link inside pointing inside edits the real file, not the link
    assert (await call_tool(ctx, "edit_file", {"path": "inlink.txt", "old": "inside", "new": "changed"})).startswith("ok")
    assert (ws / "inside.txt").read_text() == "changed\n" and (ws / "inlink.txt").is_symlink()


async def test_a_second_root_is_inside_but_its_prefix_sibling_is_not(tmp_path):
    a, b, b2 = tmp_path / "a", tmp_path / "b", tmp_path / "b2"
    for d in (a, b, b2):
        d.mkdir()
        (d / "f.txt").write_text(f"{d.name}\n")
    ctx = make_ctx([a, b])
    assert await call_tool(ctx, "read_file", {"path": str(b / "f.txt")}) == "1: b"
    assert_refused(await call_tool(ctx, "read_file", {"path": str(b2 / "f.txt")}), str(b2 / "f.txt"))
    assert_refused(await call_tool(ctx, "write_file", {"path": "../b2/x.txt", "content": "x"}), "../b2/x.txt")
    assert not (b2 / "x.txt").exists()


async def test_odd_paths_are_messages_not_crashes(jail):
    ctx = make_ctx(jail["ws"])
    for path in ("", "   ", "a\x00b"):
        out = await call_tool(ctx, "read_file", {"path": path})
        assert out.startswith("error:"), (path, out)
    loop_a, loop_b = jail["ws"] / "loop_a", jail["ws"] / "loop_b"
    loop_a.symlink_to(loop_b)
    loop_b.symlink_to(loop_a)
    out = await call_tool(ctx, "read_file", {"path": "loop_a"})
    assert out.startswith("error:")
