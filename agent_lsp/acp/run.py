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

from ..agent.host import Host
from ..agent.settings import Settings
from ..agent.setup import TrustDecisions, start_settings
from ..flags import apply_switches, flag_values


class _NoTraceback(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        if record.exc_info:
            exc = record.exc_info[1]
            record = logging.makeLogRecord({**record.__dict__, "exc_info": None, "exc_text": None,
                                            "msg": f"{record.getMessage()}: {type(exc).__name__}: {exc}", "args": ()})
        return super().format(record)


async def session_settings(args: argparse.Namespace, root: Path, decisions: TrustDecisions) -> Settings:
    """A session's settings as in every face (agent/setup.py): env < settings files < flags.

    The project file's privileged keys apply only in a project trusted already (`agent-lsp
    trust DIR`, or a yes in the terminal or an editor): ACP has no question for trust, so
    nobody is asked here and the "no" holds for this process.
    """
    settings, notes = await start_settings(Host(), root, flag_values(args), decisions)
    for note in notes:
        logging.getLogger("agent_lsp.acp").warning(note)
    return apply_switches(settings, args)


def serve_acp(args: argparse.Namespace) -> int:
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(_NoTraceback("agent-lsp acp: %(levelname)s %(message)s"))
    logging.basicConfig(level=logging.INFO, handlers=[handler], force=True)
    logging.getLogger("httpx").setLevel(logging.WARNING)

    try:
        from acp.agent.connection import AgentSideConnection
        from acp.core import DEFAULT_STDIO_BUFFER_LIMIT_BYTES
        from acp.stdio import stdio_streams

        from .handlers import AcpAgent
        from .legacy import add_set_model_route
    except ImportError as e:
        print(f"agent-lsp acp needs the ACP SDK ({e}): pip install 'agent-lsp[acp]'", file=sys.stderr)
        return 2

    agent = AcpAgent(lambda root, decisions: session_settings(args, root, decisions))

    async def run() -> None:
        # the SDK's run_agent, with session/set_model added for clients on SDK 0.8 (legacy.py)
        output_stream, input_stream = await stdio_streams(limit=DEFAULT_STDIO_BUFFER_LIMIT_BYTES)
        conn = AgentSideConnection(agent, input_stream, output_stream, listening=False)
        add_set_model_route(conn, agent.set_model)
        try:
            await conn.listen()
        finally:
            await asyncio.shield(conn.close())
            await agent.shutdown()

    try:
        asyncio.run(run())
    except KeyboardInterrupt:
        pass
    return 0
