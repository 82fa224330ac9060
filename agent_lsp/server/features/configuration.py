"""Configuration: initializationOptions, then the `agentLsp` section, re-read on change.

A payload that names nothing changes nothing (eglot sends `{settings: {}}` right
after connecting); a bad value is logged and ignored, never fatal.
"""

from __future__ import annotations

import logging

from lsprotocol import types

from ...agent.policy import settings_files
from .. import clients
from ..app import AgentServer, server
from ..config import SECTION

log = logging.getLogger("agent_lsp.server")


def _apply(ls: AgentServer, payload, source: str) -> None:
    for note in ls.config.update(payload):
        ls.log_line(f"agent-lsp: {note} ({source})", types.MessageType.Warning)


@server.feature(types.INITIALIZE)
def initialize(ls: AgentServer, params: types.InitializeParams) -> None:
    # Settings files first (trusted parts only: asking waits for the first task), the editor's values over them.
    roots = ls.roots()
    files = settings_files.read(roots[0] if roots else None)
    for note in ls.config.use_files(files, files.trusted()):
        ls.log_line(f"agent-lsp: {note}", types.MessageType.Warning)
    _apply(ls, params.initialization_options, "initializationOptions")
    clients.adapt(ls, params)


@server.feature(types.INITIALIZED)
async def initialized(ls: AgentServer, params: types.InitializedParams) -> None:
    s = ls.config.settings
    ls.log_line(f"agent-lsp {ls.version}: model {s.model} at {s.base_url}; key {'set' if s.api_key else 'not set'}")
    clients.explain(ls)
    if ls.client_has("workspace.configuration"):
        ls.spawn(_pull(ls))


async def _pull(ls: AgentServer) -> None:
    try:
        result = await ls.workspace_configuration_async(
            types.ConfigurationParams(items=[types.ConfigurationItem(section=SECTION)])
        )
    except Exception as e:  # a client that cannot answer keeps the settings it gave at start
        log.info("workspace/configuration failed: %s", e)
        return
    if result:
        _apply(ls, result[0], "workspace/configuration")


@server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
def did_change_configuration(ls: AgentServer, params: types.DidChangeConfigurationParams) -> None:
    _apply(ls, params.settings, "didChangeConfiguration")
    if ls.client_has("workspace.configuration"):
        ls.spawn(_pull(ls))
