"""`agent-lsp run | chat | demo | serve | acp | eval | trust | undo | memory`: the parser and the dispatch.

Each command's module is imported when it runs: `serve` starts without the engine.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path

from . import __version__
from .evals.command import add_eval_parser
from .server.transport import add_arguments as add_transport_arguments


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
    parser.add_argument("--version", action="version", version=f"agent-lsp {__version__}")
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
    doctor = sub.add_parser("doctor", help="the version, endpoint, model and sandbox a task here would use")
    doctor.add_argument("directory", nargs="?", default=".", help="the workspace folder (default: the current one)")
    doctor.add_argument("--json", action="store_true", help="one JSON object (for editors' health checks)")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    from .agent.workspace.leftovers import sweep

    sweep()  # temporary files an earlier, killed agent-lsp left in someone's tree
    if args.cmd == "serve":
        from .server.main import serve

        return serve(args, log_file=args.log_file)
    if args.cmd == "eval":
        from .evals.command import run_eval

        return run_eval(args)
    if args.cmd == "acp":
        from .acp.run import serve_acp

        return serve_acp(args)
    if args.cmd == "demo":
        from .terminal.demo import run_demo

        return run_demo(args)
    if hasattr(args, "directory") and not Path(args.directory).is_dir():
        print(f"agent-lsp: not a folder: {args.directory}", file=sys.stderr)
        return 2
    if args.cmd == "doctor":
        from .terminal import doctor

        return doctor.main(args.directory, args.json)
    from .terminal import commands

    if args.cmd == "trust":
        return commands.cmd_trust(args.directory)
    if args.cmd == "undo":
        return commands.cmd_undo(args.directory)
    if args.cmd == "memory":
        return commands.cmd_memory(args.directory, args.clear)
    try:
        if args.cmd == "run":
            return asyncio.run(commands.cmd_run(args))
        return asyncio.run(commands.cmd_chat(args))
    except KeyboardInterrupt:
        return commands.EXIT_CANCELLED


if __name__ == "__main__":
    sys.exit(main())

