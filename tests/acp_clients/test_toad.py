"""Toad 0.6.20, a real ACP client nobody here wrote, driven in tmux as a person would drive it.

Three sittings, each one Toad process (the resume, two) on the scripted model (kept few: each costs Toad's
start-up, several seconds here):
1. a fix: the plan, a read shown done, the edit's diff at the question (allowed: one
   fs/write_text_file), the command in Toad's own terminal, the usage line;
2. the controls: the "/" menu, a rejected edit (the file byte-identical), the mode switcher
   (Read only: nothing asked, nothing written; Accept edits: written without a question),
   a cancel that kills the running command.
3. a resume: a later Toad, started on its home screen, lists the session under Ctrl+R;
   picking it loads it (`session/load`): the earlier exchange is shown again and the next
   prompt goes on with it.
After each, every message the agent sent is checked against the pinned SDK's schema, and
Toad must not have answered any with an error (that is how it rejects an update).
"""

from __future__ import annotations

import subprocess
import time
from pathlib import Path
from typing import Callable

import pytest

from tests.acp_clients.real_clients import TOAD, ToadScreen, agent_command, check_traffic, compact, person_env, require
from tests.helpers import no_violations  # noqa: F401  (autouse fixture)
from tests.scripted_model import reply, tool_call

pytestmark = pytest.mark.timeout(180)
KEY = "sk-test-toad-KEY-5e1f0a9b7c3d"


@pytest.fixture
def toad(tmp_path: Path, workspace: Path, model):
    """`start(log_name)` -> a ToadScreen on `workspace` and the scripted model; stopped after the test."""
    require(TOAD, "Toad 0.6.20", tmux=True)
    home = tmp_path / "home"
    home.mkdir()
    screens: list[ToadScreen] = []

    def start(log: Path, *flags: str, home_screen: bool = False) -> ToadScreen:
        t = ToadScreen(workspace, home, person_env(home, model.base_url, KEY), agent_command(log, *flags))
        screens.append(t.start(home_screen=home_screen))
        if home_screen:  # Toad's home: the agents it knows, and ^r to resume a session
            t.wait_for("Resume", "Choose your fighter", timeout=30)
            return t
        t.wait_for("How can I help", timeout=30)
        t.wait_for("Initializing", gone=True, timeout=30)
        return t

    yield start
    for t in screens:
        t.stop()


def assert_clean(log: Path) -> None:
    """Every message the agent sent is the schema's, losslessly, and Toad rejected none of them."""
    traffic = check_traffic(log)
    assert traffic.checked > 0, f"no traffic recorded in {log}"
    assert traffic.problems == [], traffic.problems
    assert traffic.client_errors == [], [e["error"]["message"][:300] for e in traffic.client_errors]
    assert KEY not in log.read_text(), "the API key reached the ACP traffic"
    # every tool call that started ended completed or failed, with content
    ends = {}
    for u in traffic.updates:
        if u.get("sessionUpdate") in ("tool_call", "tool_call_update"):
            if u.get("status") in ("completed", "failed"):
                assert u.get("content"), u
                assert isinstance(u.get("rawOutput"), dict), u
            ends.setdefault(u["toolCallId"], None)
            if u.get("status"):
                ends[u["toolCallId"]] = u["status"]
        if u.get("sessionUpdate") == "tool_call" and "rawInput" in u:
            assert isinstance(u["rawInput"], dict), u
    assert all(s in ("completed", "failed") for s in ends.values()), ends


def agent_requests(log: Path, method: str) -> list[dict]:
    return [m for who, m in _traffic(log) if who == "agent" and m.get("method") == method]


def test_a_fix_in_toad(toad, workspace: Path, model, tmp_path: Path):
    (workspace / "notes.txt").write_text("alpha\n")
    todos = [{"content": "read notes.txt", "status": "completed"}, {"content": "say beta", "status": "in_progress"}]
    model.add(
        tool_call("todo_write", {"todos": todos}),
        tool_call("read_file", {"path": "notes.txt"}),
        tool_call("edit_file", {"path": "notes.txt", "old": "alpha", "new": "beta"}),
        tool_call("bash", {"command": "echo from-the-terminal; cat notes.txt"}),
        reply("Done: notes.txt says beta now."),
    )
    log = tmp_path / "tap.log"
    t = toad(log)
    t.type("please tidy the notes")
    question = t.answer("Approval request", "a")  # the edit: its diff, side by side
    assert "notes.txt (+1, -1)" in question and "alpha" in question and "beta" in question
    command = t.answer("$ echo from-the-terminal", "a")
    assert "echo from-the-terminal; cat notes.txt" in command
    t.wait_for("Done: notes.txt says beta now.", timeout=30)
    done = t.wait_for("⌛ New Session", gone=True)  # the turn is over (the tab's busy mark)
    assert "from-the-terminal" in done and "/bin/bash -c" in done  # it ran in Toad's terminal
    assert not [line for line in done.splitlines() if "🔧" in line and "⌛" in line], done  # none left hanging
    assert "Read notes.txt ✔" in done and "Edit notes.txt ✔" in done, done
    assert done.count("✔") >= 4, done  # plan, read, edit, command each shown done
    assert "say beta" in done and "read notes.txt" in done  # the plan panel
    assert "K (" in done  # the usage line: tokens in context (the share of the window)
    assert (workspace / "notes.txt").read_text() == "beta\n"
    writes = agent_requests(log, "fs/write_text_file")
    assert [(w["params"]["path"], w["params"]["content"]) for w in writes] == [(str(workspace / "notes.txt"), "beta\n")]
    assert_clean(log)


def test_controls_in_toad(toad, workspace: Path, model, tmp_path: Path):
    original = b"keep me\r\nexactly\r\n"
    (workspace / "keep.txt").write_bytes(original)
    model.add(
        tool_call("edit_file", {"path": "keep.txt", "old": "keep me", "new": "changed"}),
        reply("You rejected it."),
        # Read only: no question, nothing written, no command run
        tool_call("write_file", {"path": "ro.txt", "content": "no\n"}),
        tool_call("bash", {"command": "touch ro-marker"}),
        reply("Read only, so I changed nothing."),
        # Accept edits: written without a question
        tool_call("write_file", {"path": "ae.txt", "content": "yes\n"}),
        reply("Written."),
        # a long command, cancelled while it runs
        tool_call("bash", {"command": "sleep 37.5; touch late-marker"}),
        reply("never sent"),
    )
    log = tmp_path / "tap.log"
    t = toad(log)

    t.type("/", enter=False)  # the slash-command menu
    menu = t.wait_for("/undo", "/memory", "/always-allow")
    assert "Take back the last task" in menu
    t.type("memory", enter=False)  # narrow the menu, pick it, send it: run without the model
    t.wait_for("/memory ")
    t.key("Enter")
    t.wait_for("❯ /memory")
    time.sleep(0.5)
    t.key("Enter")
    t.wait_for("remembers nothing about this project yet")
    assert model.requests == []

    t.type("change keep.txt")
    t.answer("Approval request", "r")
    t.wait_for("You rejected it.")
    assert (workspace / "keep.txt").read_bytes() == original

    _pick_mode(t, "Read only", "Down")  # from Ask
    t.type("make ro.txt and a marker")
    screen = t.wait_for("Read only, so I changed nothing.", timeout=30)
    assert "Approval request" not in screen and "❯ a Allow" not in screen
    assert not (workspace / "ro.txt").exists() and not (workspace / "ro-marker").exists()

    _pick_mode(t, "Accept edits", "Up", "Up")
    t.type("make ae.txt")
    t.wait_for("Written.", timeout=30)
    assert (workspace / "ae.txt").read_text() == "yes\n"

    _pick_mode(t, "Ask", "Down")
    t.type("wait a while")
    t.answer("$ sleep 37.5", "a")
    deadline = time.monotonic() + 10
    while not _running("sleep 37.5") and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _running("sleep 37.5"), "the command never started"
    t.key("Escape")
    t.key("Escape")
    try:  # Toad flashes "Turn cancelled" for 3 s; what lasts is the prompt's answer
        t.wait_until(lambda shown: "Turn cancelled" in shown or _stop_reasons(log)[-1:] == ["cancelled"], timeout=30)
    except TimeoutError as e:
        raise AssertionError(f"the turn was not cancelled ({_stop_reasons(log)}); Toad shows:\n{compact(str(e))}") from None
    assert _wait_stop_reasons(log, 5)[-1] == "cancelled"  # /memory, the rejected edit, Read only, Accept edits, this
    deadline = time.monotonic() + 5
    while _running("sleep 37.5") and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not _running("sleep 37.5"), "the cancelled command still runs"
    assert not (workspace / "late-marker").exists()

    modes = [m["params"]["update"] for m in agent_requests(log, "session/update")
             if m["params"]["update"].get("sessionUpdate") == "current_mode_update"]
    assert [u["currentModeId"] for u in modes] == ["read-only", "accept-edits", "ask"]
    assert_clean(log)


def _pick_mode(t: ToadScreen, name: str, *moves: str) -> None:
    """Open the mode switcher (Ctrl+O), move from the current mode to `name`, choose it.

    Toad lists the modes by name (Accept edits, Ask, Read only), the current one highlighted.
    """
    _press_until(t, "C-o", lambda shown: "Dismiss mode switcher" in shown and "Read and answer only" in shown)
    time.sleep(0.5)
    for key in moves:
        t.key(key)
    t.key("Enter")

    def chosen(shown: str) -> bool:  # the flash, or what lasts: the switcher gone, the mode in the status line
        if f"Mode changed to {name}" in shown:
            return True
        return "Dismiss mode switcher" not in shown and t.status_line(shown).endswith(f"  {name}")

    try:
        t.wait_until(chosen, timeout=30)
    except TimeoutError as e:
        raise AssertionError(f"Toad never showed the mode {name}; it shows:\n{compact(str(e))}") from None


def _press_until(t: ToadScreen, key: str, settled: Callable[[str], bool], tries: int = 3) -> str:
    """Press `key` until the screen settles, as a person presses again when a busy Toad missed a key."""
    for _ in range(tries - 1):
        t.key(key)
        try:
            return t.wait_until(settled, timeout=10)
        except TimeoutError:
            pass
    t.key(key)
    try:
        return t.wait_until(settled, timeout=20)
    except TimeoutError as e:
        raise AssertionError(f"{key} pressed {tries} times and Toad shows:\n{compact(str(e))}") from None


def _stop_reasons(log: Path) -> list[str]:
    """How each session/prompt the agent answered ended, in order (end_turn, cancelled, ...)."""
    return [m["result"]["stopReason"] for who, m in _traffic(log)
            if who == "agent" and isinstance(m.get("result"), dict) and "stopReason" in m["result"]]


def _wait_stop_reasons(log: Path, count: int, timeout: float = 30.0) -> list[str]:
    """The stop reasons once `count` prompts are answered: a turn is over when the agent says so."""
    deadline = time.monotonic() + timeout
    while len(reasons := _stop_reasons(log)) < count and time.monotonic() < deadline:
        time.sleep(0.2)
    assert len(reasons) >= count, f"only {len(reasons)} of {count} prompts answered: {reasons}"
    return reasons


def _running(needle: str) -> bool:
    out = subprocess.run(["ps", "-eo", "args"], capture_output=True, text=True).stdout
    return any(needle in line and "ps -eo" not in line for line in out.splitlines())


def test_resume_in_toad(toad, workspace: Path, model, tmp_path: Path):
    model.add(reply("The word is PINEAPPLE-42."), reply("And then MANGO-7."))
    log = tmp_path / "tap.log"  # Toad keeps the agent's command with the session: the resume runs it again
    first = toad(log)
    first.type("say the word")
    first.wait_for("PINEAPPLE-42", timeout=30)
    assert _wait_stop_reasons(log, 1) == ["end_turn"]  # the turn is over (and kept) before Toad is closed
    first.stop()

    t = toad(tmp_path / "unused.log", home_screen=True)
    listed = _press_until(t, "C-r", lambda shown: "Session Resume" in shown and str(workspace) in shown)
    assert "New Session" in listed  # Toad's own record of the session
    time.sleep(0.5)  # the table takes the focus once its rows are in
    _press_until(t, "Enter", lambda shown: "Session Resume" not in shown)
    t.wait_for("say the word", "PINEAPPLE-42", "How can I help", timeout=30)  # replayed by session/load
    t.type("and then?")
    t.wait_for("MANGO-7", timeout=30)
    (loaded,) = [m for who, m in _traffic(log) if who == "client" and m.get("method") == "session/load"]
    assert loaded["params"]["cwd"] == str(workspace)
    history = [m.get("content") for m in model.requests[-1]["messages"] if m["role"] != "system"]
    assert history == ["say the word", "The word is PINEAPPLE-42.", "and then?"], history
    assert_clean(log)


def _traffic(log: Path) -> list[tuple[str, dict]]:
    from tests.acp_clients import tap

    return list(tap.read(str(log)))
