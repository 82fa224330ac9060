"""`agent-lsp acp`: run the ACP agent on stdin/stdout; the log goes to stderr.

stdout carries the protocol and nothing else. The SDK logs a bad line or a failed
handler with `logging.exception`; the log here keeps the message and drops the
traceback, because what a client shows of stderr is read by people.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys
from pathlib import Path

from ..agent.settings import Settings


class _NoTraceback(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        if record.exc_info:
            exc = record.exc_info[1]
            record = logging.makeLogRecord({**record.__dict__, "exc_info": None, "exc_text": None,
                                            "msg": f"{record.getMessage()}: {type(exc).__name__}: {exc}", "args": ()})
        return super().format(record)


def session_settings(args: argparse.Namespace, root: Path) -> Settings:
    """A session's settings as in the terminal face: env < settings files < flags.

    The project file's privileged keys apply only in a project trusted already (`agent-lsp
    trust DIR`, or a yes in the terminal or an editor): a session/new has nobody to ask yet.
    """
    from ..agent import settings_files
    from ..cli import _settings

    files = settings_files.read(root)
    settings, notes = _settings(args, files, files.trusted())
    for note in notes:
        logging.getLogger("agent_lsp.acp").warning(note)
    return settings


def serve_acp(args: argparse.Namespace) -> int:
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(_NoTraceback("agent-lsp acp: %(levelname)s %(message)s"))
    logging.basicConfig(level=logging.INFO, handlers=[handler], force=True)
    logging.getLogger("httpx").setLevel(logging.WARNING)

    try:
        from acp import run_agent

        from .agent import AcpAgent
    except ImportError as e:
        print(f"agent-lsp acp needs the ACP SDK ({e}): pip install 'agent-lsp[acp]'", file=sys.stderr)
        return 2

    agent = AcpAgent(lambda root: session_settings(args, root))

    async def run() -> None:
        try:
            await run_agent(agent)
        finally:
            await agent.shutdown()

    try:
        asyncio.run(run())
    except KeyboardInterrupt:
        pass
    return 0
