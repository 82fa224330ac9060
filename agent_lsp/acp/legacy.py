"""What clients on an older ACP SDK still send: session/set_model and the `models` state.

The pinned SDK (schema v1.19) selects the model with a config option of category
`model`; SDK 0.8 (schema v0.10, which acpc 0.1.0 is built on) had `models` in
session/new's answer and a session/set_model request. The pinned SDK's router does not
know that method, so it is added to the router here, and the answers carry `models`
beside the fields the pinned schema defines (extra fields are allowed there: the pinned
SDK's own types validate these answers unchanged).
"""

from __future__ import annotations

import logging
from typing import Any, Awaitable, Callable, Optional

from acp import RequestError
from acp.router import Route
from acp.schema import LoadSessionResponse, NewSessionResponse

log = logging.getLogger("agent_lsp.acp")

SET_MODEL = "session/set_model"


class NewSessionWithModels(NewSessionResponse):
    """session/new's answer with the older `models` state beside `configOptions`."""

    models: Optional[dict[str, Any]] = None


class LoadSessionWithModels(LoadSessionResponse):
    """session/load's answer, likewise."""

    models: Optional[dict[str, Any]] = None


def add_set_model_route(conn: Any, set_model: Callable[[str, str], Awaitable[None]]) -> bool:
    """Route session/set_model {sessionId, modelId} to `set_model(session_id, model_id)`.

    Reaches into the pinned SDK's connection for its router (there is no public hook for a
    method the schema dropped); tests/acp/test_session_controls.py fails if that moves.
    """
    router = getattr(getattr(conn, "_conn", None), "_handler", None)
    if router is None or not hasattr(router, "add_route"):
        log.warning("session/set_model is not available: this ACP SDK's connection has no router to extend")
        return False

    async def handle(params: Any) -> dict[str, Any]:
        if not isinstance(params, dict):
            raise RequestError.invalid_params({"details": "session/set_model needs {sessionId, modelId}"})
        session_id, model_id = params.get("sessionId"), params.get("modelId")
        if not isinstance(session_id, str) or not isinstance(model_id, str):
            raise RequestError.invalid_params({"details": "session/set_model needs sessionId and modelId as strings"})
        await set_model(session_id, model_id)
        return {}

    router.add_route(Route(method=SET_MODEL, func=handle, kind="request"))
    return True
