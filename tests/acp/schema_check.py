"""Does every message the agent sends hold up against the pinned SDK's schema, losslessly?

The SDK's pydantic types are lenient on purpose (a malformed optional field becomes None,
a bad list item is dropped), so `model_validate` alone accepts a lot. Here each message
is validated and dumped again, and every field the schema knows must come back equal:
a field the schema had to salvage or drop is a problem, named with its path. Fields the
schema does not know are problems too, except the ones listed in ALLOWED_EXTRA.
"""

from __future__ import annotations

from typing import Any

from acp import schema as S

REQUESTS = {  # agent -> client requests
    "session/request_permission": S.RequestPermissionRequest,
    "fs/read_text_file": S.ReadTextFileRequest,
    "fs/write_text_file": S.WriteTextFileRequest,
    "terminal/create": S.CreateTerminalRequest,
    "terminal/output": S.TerminalOutputRequest,
    "terminal/release": S.ReleaseTerminalRequest,
    "terminal/wait_for_exit": S.WaitForTerminalExitRequest,
    "terminal/kill": S.KillTerminalRequest,
}
NOTIFICATIONS = {"session/update": S.SessionNotification}
RESULTS = {  # the agent's answers to the client's requests, by the request's method
    "initialize": S.InitializeResponse,
    "session/new": S.NewSessionResponse,
    "session/load": S.LoadSessionResponse,
    "session/prompt": S.PromptResponse,
    "session/set_mode": S.SetSessionModeResponse,
    "session/set_config_option": S.SetSessionConfigOptionResponse,
    "session/list": S.ListSessionsResponse,
}
# session/set_model and `models` are SDK 0.8's (agent_lsp/acp/legacy.py): not in the pinned schema
LEGACY_METHODS = {"session/set_model"}
ALLOWED_EXTRA = {("session/new", "models"), ("session/load", "models")}


def _compare(sent: Any, back: Any, path: str, out: list[str], extra_ok: set[str]) -> None:
    if isinstance(sent, dict):
        if not isinstance(back, dict):
            out.append(f"{path}: became {back!r}")
            return
        for k, v in sent.items():
            if k not in back:
                if path or k not in extra_ok:
                    out.append(f"{path}.{k}: not in the schema" if v is not None else f"{path}.{k}: null")
                continue
            _compare(v, back[k], f"{path}.{k}", out, extra_ok)
    elif isinstance(sent, list):
        if not isinstance(back, list) or len(back) != len(sent):
            out.append(f"{path}: {len(sent)} items, the schema kept {len(back) if isinstance(back, list) else back!r}")
            return
        for i, (a, b) in enumerate(zip(sent, back)):
            _compare(a, b, f"{path}[{i}]", out, extra_ok)
    elif sent != back and not (isinstance(sent, (int, float)) and sent == back):
        out.append(f"{path}: {sent!r} came back as {back!r}")


def lossless(model: type[S.BaseModel], data: Any, where: str, extra_ok: set[str] = frozenset()) -> list[str]:
    try:
        obj = model.model_validate(data)
    except Exception as e:  # noqa: BLE001 - any validation failure is the finding
        return [f"{where}: does not validate as {model.__name__}: {e}"]
    back = obj.model_dump(mode="json", by_alias=True, exclude_unset=True)
    out: list[str] = []
    _compare(data, back, "", out, extra_ok)
    return [f"{where}{p}" for p in out]


class SchemaChecker:
    """Feed it every message in order (`from_agent` True for the agent's); read `problems`."""

    def __init__(self) -> None:
        self.client_requests: dict[Any, str] = {}  # id -> method, for the agent's answers
        self.problems: list[str] = []
        self.checked = 0
        self.updates: list[dict[str, Any]] = []  # every session/update the agent sent
        self.client_errors: list[dict[str, Any]] = []  # the client's error answers (rejections)

    def feed(self, msg: dict[str, Any], from_agent: bool) -> None:
        if not from_agent:
            if "method" in msg and "id" in msg:
                self.client_requests[msg["id"]] = msg["method"]
            elif "error" in msg:
                self.client_errors.append(msg)
            return
        self.checked += 1
        method = msg.get("method")
        if method is not None:
            table = REQUESTS if "id" in msg else NOTIFICATIONS
            model = table.get(method)
            if model is None:
                self.problems.append(f"{method}: the agent sent a method the schema does not have")
                return
            self.problems += lossless(model, msg.get("params"), method)
            if method == "session/update":
                self.updates.append(msg.get("params", {}).get("update", {}))
            return
        asked = self.client_requests.pop(msg.get("id"), None)
        if "error" in msg:
            self.problems += lossless(S.Error, msg["error"], f"error answer to {asked}")
            return
        if asked in LEGACY_METHODS or asked is None:
            return
        model = RESULTS.get(asked)
        if model is None:
            return  # an extension or a method this checker does not know: nothing to compare with
        self.problems += lossless(model, msg.get("result"), f"answer to {asked}",
                                  {k for m, k in ALLOWED_EXTRA if m == asked})
