"""Which model a session talks to, chosen in the client: the endpoint's list and the switch.

The list is the endpoint's own `GET /models` (OpenAI, llama.cpp, vLLM and Ollama all have
it), read once per endpoint and process, with the API key only in the Authorization
header. An endpoint without that route (or one that cannot be reached yet) gets the
configured model as the only entry, and then any model id the person names is taken:
nothing says it is wrong, and the next model call will if it is.

It is offered twice, because clients read it in two places: as a config option of
category `model` (the pinned SDK's model selection: `configOptions`, switched with
session/set_config_option) and as the older `models` state with session/set_model,
which clients built on SDK 0.8 (acpc) send. Both switch the model for the next turn.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from typing import Any

import httpx
from acp.schema import SessionConfigOptionSelect, SessionConfigSelectOption

log = logging.getLogger("agent_lsp.acp")

CONFIG_ID = "model"
MAX_MODELS = 200
# session/new waits for the list at most this long (a dead endpoint is asked again after
# RETRY_FALLBACK seconds, so it does not slow every new session down)
LIST_TIMEOUT = httpx.Timeout(2.0, connect=1.0)
RETRY_FALLBACK = 60.0


@dataclass(frozen=True)
class ModelList:
    ids: tuple[str, ...]
    from_endpoint: bool  # False: the fallback (the endpoint has no list, or was not reachable)

    def accepts(self, model_id: object) -> bool:
        if not isinstance(model_id, str) or not model_id.strip():
            return False
        return model_id in self.ids or not self.from_endpoint

    def with_current(self, current: str) -> "ModelList":
        """The list with the session's current model in it (first when it was missing)."""
        if current in self.ids:
            return self
        return ModelList((current, *self.ids), self.from_endpoint)


def parse_models(payload: Any) -> list[str]:
    """The model ids of an OpenAI-style `{"data": [{"id": ...}, ...]}` answer (Ollama's too)."""
    data = payload.get("data") if isinstance(payload, dict) else None
    if not isinstance(data, list):
        return []
    ids: list[str] = []
    for entry in data:
        mid = entry.get("id") if isinstance(entry, dict) else None
        if isinstance(mid, str) and mid.strip() and mid not in ids:
            ids.append(mid)
    return ids[:MAX_MODELS]


async def fetch(base_url: str, api_key: str, current: str) -> ModelList:
    """The endpoint's models, or the fallback [current]; never raises, never logs the key."""
    url = base_url.rstrip("/") + "/models"
    headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
    try:
        async with httpx.AsyncClient(timeout=LIST_TIMEOUT) as http:
            r = await http.get(url, headers=headers)
    except httpx.HTTPError as e:
        log.info("the model list at %s could not be read (%s); offering %s only", url, type(e).__name__, current)
        return ModelList((current,), False)
    if r.status_code != 200:
        log.info("the model list at %s answered HTTP %d; offering %s only", url, r.status_code, current)
        return ModelList((current,), False)
    try:
        ids = parse_models(r.json())
    except ValueError:
        ids = []
    if not ids:
        log.info("the model list at %s named no model; offering %s only", url, current)
        return ModelList((current,), False)
    return ModelList(tuple(ids), True).with_current(current)


class ModelCatalog:
    """The lists already read, per (endpoint, key): one GET per endpoint and process."""

    def __init__(self) -> None:
        self._lists: dict[tuple[str, int], tuple[ModelList, float]] = {}

    async def models(self, base_url: str, api_key: str, current: str) -> ModelList:
        key = (base_url.rstrip("/"), hash(api_key))
        got, when = self._lists.get(key, (None, 0.0))
        if got is None or (not got.from_endpoint and time.monotonic() - when > RETRY_FALLBACK):
            got = await fetch(base_url, api_key, current)
            self._lists[key] = (got, time.monotonic())
        return got.with_current(current)


def config_option(models: ModelList, current: str) -> SessionConfigOptionSelect:
    """The model as a config option of category `model` (the pinned SDK's model selection)."""
    models = models.with_current(current)
    return SessionConfigOptionSelect(
        id=CONFIG_ID,
        name="Model",
        description="The model the next turn is sent to",
        category="model",
        type="select",
        current_value=current,
        options=[SessionConfigSelectOption(value=m, name=m) for m in models.ids],
    )


def legacy_state(models: ModelList, current: str) -> dict[str, Any]:
    """The `models` field of session/new as SDK 0.8 clients read it (SessionModelState)."""
    models = models.with_current(current)
    return {"currentModelId": current,
            "availableModels": [{"modelId": m, "name": m} for m in models.ids]}


def unknown_model(model_id: object, models: ModelList) -> str:
    shown = ", ".join(models.ids[:10]) + (", ..." if len(models.ids) > 10 else "")
    return f"unknown model {model_id!r}; the endpoint offers: {shown}"
