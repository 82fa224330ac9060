"""The terminal's commands: `run`, `chat`, `trust`, `memory`, `undo` (the demo is demo.py).

Each command starts the way every face does (agent/setup.py: settings files, trust,
Settings, Session, MCP servers) with the terminal's Host, which asks on stderr and
reads the answers from stdin. `undo` and `/undo` take the last task run in a folder
back from the record the loop kept in the state dir (state/checkpoints.py): files are
put back only where they still hold what the task left, and the report names every file
it skipped and why.
"""

from __future__ import annotations

import argparse
import asyncio
import signal
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from ..agent import setup
from ..agent.outcome import TurnResult, finished
from ..agent.policy import settings_files, trust
from ..agent.settings import Settings
from ..agent.state import checkpoints
from ..flags import apply_switches, flag_values

if TYPE_CHECKING:  # the engine is imported by the commands that run it
    from ..agent.loop import Session
    from .ttyhost import TerminalHost

EXIT_OK, EXIT_ERROR, EXIT_STEP_LIMIT, EXIT_CANCELLED = 0, 1, 3, 130
EXIT_UNDONE, EXIT_NOTHING = 0, 1


def undo_folder(directory: Path | str) -> tuple[int, str]:
    """(exit code, report) for undoing the last task run in `directory`."""
    root = Path(directory).resolve()

    def display(p: Path) -> str:
        return str(p.relative_to(root)) if p.is_relative_to(root) else str(p)

    undone, text = checkpoints.undo_on_disk(root, display)
    return (EXIT_UNDONE if undone else EXIT_NOTHING), text


def cmd_undo(directory: str) -> int:
    code, text = undo_folder(directory)
    print(f"agent-lsp: {text}")
    return code


async def _terminal_session(args: argparse.Namespace, host: TerminalHost) -> Session:
    """A session on args.directory with its MCP servers (the project's start only once trusted)."""
    settings = await _terminal_settings(args, host)
    root = Path(args.directory).resolve()
    session = setup.open_session(Path(args.directory), host, settings)
    for note in await setup.attach_mcp(session, root, host.trust_decisions):
        host.say(f"agent-lsp: {note}")
    return session


async def _terminal_settings(args: argparse.Namespace, host: TerminalHost) -> Settings:
    """The settings for a run in args.directory: the project's privileged keys wait for trust (asked once)."""
    root = Path(args.directory).resolve()
    settings, notes = await setup.start_settings(host, root, flag_values(args), host.trust_decisions)
    apply_switches(settings, args)
    for note in notes:
        host.say(f"agent-lsp: {note}")
    return settings


def cmd_trust(directory: str) -> int:
    root = Path(directory).resolve()
    files = settings_files.read(root)
    subjects = settings_files.project_subjects(root)
    if not subjects:
        print(f"agent-lsp: nothing to trust in {root} (no project settings that start programs or send code)")
        return 0
    trust.grant(root, subjects)
    for note in files.notes:
        print(f"agent-lsp: {note}", file=sys.stderr)
    print(f"agent-lsp: trusted {root} ({', '.join(sorted(subjects))}); asked again if those files change")
    return 0


async def _run_turn_interruptibly(session: Session, task: str) -> TurnResult:
    """Run a turn; SIGINT cancels the turn (not the program)."""
    loop = asyncio.get_running_loop()
    turn = asyncio.ensure_future(session.run_turn(task))
    try:
        loop.add_signal_handler(signal.SIGINT, turn.cancel)
    except (NotImplementedError, RuntimeError):
        pass
    try:
        return await finished(turn)  # the program itself stopping takes the turn with it
    finally:
        try:
            loop.remove_signal_handler(signal.SIGINT)
        except (NotImplementedError, RuntimeError):
            pass


def _exit_code(result: TurnResult) -> int:
    if result.at_limit:
        return EXIT_STEP_LIMIT
    return {"done": EXIT_OK, "cancelled": EXIT_CANCELLED}.get(result.status, EXIT_ERROR)


async def cmd_run(args: argparse.Namespace, task: str | None = None) -> int:
    from .ttyhost import TerminalHost

    host = TerminalHost(yes=bool(args.yes))
    session = await _terminal_session(args, host)
    try:
        result = await _run_turn_interruptibly(session, task or args.task)
    finally:
        await session.aclose()
    if result.status == "stepLimit":  # (an error was already shown as it happened)
        host.say(f"agent-lsp: stopped at the step limit ({session.settings.max_steps})")
    return _exit_code(result)


async def cmd_chat(args: argparse.Namespace) -> int:
    from .ttyhost import TerminalHost

    host = TerminalHost(yes=bool(args.yes))
    session = await _terminal_session(args, host)
    settings = session.settings
    host.say(f"agent-lsp chat — model {settings.model} at {settings.base_url}; "
              "Ctrl-C cancels a turn, Ctrl-D or /exit quits, /new starts over, /undo takes the last task back.")
    try:
        while True:
            sys.stderr.write("\n> ")
            sys.stderr.flush()
            loop = asyncio.get_running_loop()
            reading = asyncio.ensure_future(host.reader.readline())
            try:
                loop.add_signal_handler(signal.SIGINT, reading.cancel)
            except (NotImplementedError, RuntimeError):
                pass
            try:
                line = await reading
            except asyncio.CancelledError:
                line = None
            finally:
                try:
                    loop.remove_signal_handler(signal.SIGINT)
                except (NotImplementedError, RuntimeError):
                    pass
            if line is None or line.strip() in ("/exit", "/quit"):
                sys.stderr.write("\n")
                return EXIT_OK
            if not line.strip():
                continue
            if line.strip() == "/new":
                session.reset()
                host.say("(new session)")
                continue
            if line.strip() == "/undo":
                host.say(undo_folder(session.workspace.root)[1])
                continue
            result = await _run_turn_interruptibly(session, line)
            if result.status == "error":  # the error itself was shown as it happened
                host.say("(the session goes on)")
            elif result.status == "cancelled":
                host.say("(turn cancelled; the session goes on)")
    finally:
        await session.aclose()


def cmd_memory(directory: str, clear: bool) -> int:
    from ..agent.state import memory

    root = Path(directory).resolve()
    if clear:
        print(f"agent-lsp: cleared the memory of {root} ({memory.clear(root)})")
        return 0
    print(memory.memory_path(root))
    text = memory.read(root)
    print(text if text else "(empty: the agent has not remembered anything here yet)", end="" if text.endswith("\n") else "\n")
    return 0


