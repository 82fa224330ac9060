"""`agent-lsp run | chat | demo | serve`: the terminal face and the server's entry point."""

from __future__ import annotations

import argparse
import asyncio
import signal
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from .agent import mcp_config, settings_files
from .agent.settings import Settings
from .evals.cli import add_eval_parser
from .server.transport import add_arguments as add_transport_arguments

if TYPE_CHECKING:  # the engine is imported by the commands that run it: `serve` starts without it
    from .agent.loop import Session, TurnResult
    from .terminal import TerminalHost

EXIT_OK, EXIT_ERROR, EXIT_STEP_LIMIT, EXIT_CANCELLED = 0, 1, 3, 130


def _settings(args: argparse.Namespace, files: settings_files.SettingsFiles | None = None,
              trusted: bool = False) -> tuple[Settings, list[str]]:
    """env < settings files < flags; `files` None means no files (the demo's scratch folder)."""
    flags = {
        "base_url": getattr(args, "base_url", None),
        "model": getattr(args, "model", None),
        "max_steps": getattr(args, "max_steps", None),
        "command_timeout": getattr(args, "timeout", None),
    }
    s, notes = settings_files.compose(files or settings_files.SettingsFiles(None), trusted, flags)
    if getattr(args, "no_stream", False):
        s.stream = False
    if getattr(args, "web", False):
        s.web_tools = True
    s.auto_approve = bool(getattr(args, "yes", False))
    return s, notes


async def _terminal_session(args: argparse.Namespace, host: TerminalHost) -> Session:
    """A session on args.directory with its MCP servers (the project's start only once trusted)."""
    settings = await _terminal_settings(args, host)
    from .agent.loop import open_session

    session = open_session(Path(args.directory), host, settings)
    for note in await mcp_config.attach(session, Path(args.directory).resolve()):
        host.say(f"agent-lsp: {note}")
    return session


async def _terminal_settings(args: argparse.Namespace, host: TerminalHost) -> Settings:
    """The settings for a run in args.directory: the project's privileged keys wait for trust (asked once)."""
    files = settings_files.read(Path(args.directory).resolve())
    trusted = files.trusted() or await settings_files.ensure_trusted(host, files)
    settings, notes = _settings(args, files, trusted)
    for note in notes:
        host.say(f"agent-lsp: {note}")
    return settings


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--yes", "-y", action="store_true", help="approve every edit and command; ask_user gets no answer")
    p.add_argument("--max-steps", type=int, help="tool rounds before the agent must summarise (default 50)")
    p.add_argument("--model", help="model id (default $AGENT_MODEL or gpt-4o-mini)")
    p.add_argument("--base-url", help="OpenAI-compatible API root (default $AGENT_BASE_URL)")
    p.add_argument("--timeout", type=float, help="seconds a bash command may run (default 60)")
    p.add_argument("--no-stream", action="store_true", help="ask for whole replies instead of a stream")
    p.add_argument("--web", action="store_true", help="offer web_search and fetch_url (gated)")
    p.add_argument("-C", "--directory", default=".", help="workspace folder (default: the current one)")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="agent-lsp", description="A coding agent for your terminal and any LSP editor.")
    sub = parser.add_subparsers(dest="cmd", required=True)
    run = sub.add_parser("run", help="run one task in the current folder and exit")
    _common(run)
    run.add_argument("task", help="what the agent should do")
    chat = sub.add_parser("chat", help="interactive session; Ctrl-C cancels the running turn")
    _common(chat)
    demo = sub.add_parser("demo", help="a scratch fizzbuzz with a failing test, fixed by the agent")
    _common(demo)
    serve = sub.add_parser("serve", help="language server over stdio (or --tcp, --ws)")
    add_transport_arguments(serve)
    serve.add_argument("--log-file", help="also write the server's log here")
    trust = sub.add_parser("trust", help="trust a project's settings files (they may start programs)")
    trust.add_argument("directory", nargs="?", default=".", help="the project folder (default: the current one)")
    add_eval_parser(sub)
    _common(sub.add_parser("acp", help="Agent Client Protocol agent over stdio (Zed, JetBrains, ...)"))
    undo = sub.add_parser("undo", help="take back the last task run in this folder (files it changed, created or deleted)")
    undo.add_argument("-C", "--directory", default=".", help="the workspace folder (default: the current one)")
    mem = sub.add_parser("memory", help="print the path and text of the agent's memory of a folder")
    mem.add_argument("directory", nargs="?", default=".", help="the workspace folder (default: the current one)")
    mem.add_argument("--clear", action="store_true", help="empty the memory")
    return parser


def cmd_trust(directory: str) -> int:
    root = Path(directory).resolve()
    files = settings_files.read(root)
    subjects = settings_files.project_subjects(root)
    if not subjects:
        print(f"agent-lsp: nothing to trust in {root} (no project settings that start programs or send code)")
        return 0
    from .agent import trust

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
        return await turn
    finally:
        try:
            loop.remove_signal_handler(signal.SIGINT)
        except (NotImplementedError, RuntimeError):
            pass


def _exit_code(result: TurnResult) -> int:
    limits = dict.fromkeys(("stepLimit", "tokenLimit", "loopGuard", "compactionLimit"), EXIT_STEP_LIMIT)
    return {"done": EXIT_OK, "cancelled": EXIT_CANCELLED, **limits}.get(result.status, EXIT_ERROR)


async def cmd_run(args: argparse.Namespace, task: str | None = None) -> int:
    from .terminal import TerminalHost

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
    from .terminal import TerminalHost

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
                from .undo_cli import undo_folder

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
    from .agent import memory

    root = Path(directory).resolve()
    if clear:
        print(f"agent-lsp: cleared the memory of {root} ({memory.clear(root)})")
        return 0
    print(memory.memory_path(root))
    text = memory.read(root)
    print(text if text else "(empty: the agent has not remembered anything here yet)", end="" if text.endswith("\n") else "\n")
    return 0


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.cmd == "serve":
        from .server.main import serve

        return serve(args, log_file=args.log_file)
    if args.cmd == "eval":
        from .evals.cli import run_eval

        return run_eval(args)
    if args.cmd == "acp":
        from .acp.main import serve_acp

        return serve_acp(args)
    if args.cmd == "demo":
        from .demo import run_demo

        return run_demo(args)
    if hasattr(args, "directory") and not Path(args.directory).is_dir():
        print(f"agent-lsp: not a folder: {args.directory}", file=sys.stderr)
        return 2
    if args.cmd == "trust":
        return cmd_trust(args.directory)
    if args.cmd == "undo":
        from .undo_cli import cmd_undo

        return cmd_undo(args.directory)
    if args.cmd == "memory":
        return cmd_memory(args.directory, args.clear)
    try:
        if args.cmd == "run":
            return asyncio.run(cmd_run(args))
        return asyncio.run(cmd_chat(args))
    except KeyboardInterrupt:
        return EXIT_CANCELLED


if __name__ == "__main__":
    sys.exit(main())

