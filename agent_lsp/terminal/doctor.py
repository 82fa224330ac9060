"""`agent-lsp doctor [--json] [DIR]`: what an editor's health check asks the server.

Editors' health checks (Neovim's `:checkhealth agent-lsp`, `M-x agent-lsp-doctor`)
need the server's own view of its set-up: the settings it would use in DIR (the
environment and settings files, exactly as a task composes them), whether the
endpoint answers `GET /models` and lists the model, and whether commands would run
in a sandbox. Guessing those in Lua or Elisp would drift from what the server does.
The API key is only ever reported as set or not set.
"""

from __future__ import annotations

import importlib
import json
from pathlib import Path
from typing import Any

from .. import __version__

TIMEOUT = 5.0  # seconds for GET /models: a health check must not hang the editor


def _settings(root: Path):
    from ..agent.policy import settings_files

    files = settings_files.read(root)
    settings, _notes = settings_files.compose(files, files.trusted())
    return settings


def _models(base_url: str, api_key: str, scrub) -> tuple[bool, list[str] | None, str | None]:
    """(reachable, model ids or None, error) for GET {base_url}/models."""
    import httpx

    headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
    try:
        r = httpx.get(base_url.rstrip("/") + "/models", headers=headers, timeout=TIMEOUT)
    except httpx.HTTPError as e:
        return False, None, scrub(f"{type(e).__name__}: {e}".splitlines()[0])
    if r.status_code in (401, 403):
        return False, None, f"HTTP {r.status_code}: the API key was refused"
    if r.status_code != 200:
        return True, None, f"HTTP {r.status_code} from /models"
    try:
        data = r.json().get("data")
        ids = [str(m.get("id")) for m in data if isinstance(m, dict) and m.get("id")]
    except (ValueError, AttributeError, TypeError):
        return True, None, "the /models answer was not an OpenAI model list"
    return True, ids, None


def _sandbox() -> dict[str, Any] | None:
    """The command sandbox as the server would report it; None when this build has none."""
    try:
        detect = importlib.import_module("agent_lsp.agent.sandbox.detect")
    except ImportError:
        return None
    try:
        available = detect.detect()
    except Exception as e:  # a probe that fails is a fact for the person, not a crash
        return {"active": False, "summary": f"could not be checked: {e}"}
    ok = bool(getattr(available, "ok", getattr(available, "available", False)))
    why = getattr(available, "reason", "") or getattr(available, "why", "")
    return {"active": ok, "summary": ("available" if ok else "not available") + (f": {why}" if why else "")}


def report(root: Path) -> dict[str, Any]:
    s = _settings(root)
    reachable, ids, error = _models(s.base_url, s.api_key, s.scrub)
    return {
        "version": __version__,
        "endpoint": {
            "base_url": s.base_url,
            "model": s.model,
            "key_set": bool(s.api_key),
            "reachable": reachable,
            "models": ids,
            "listed": None if ids is None else s.model in ids,
            "error": error,
        },
        "sandbox": _sandbox(),
    }


def text(r: dict[str, Any]) -> str:
    e = r["endpoint"]
    lines = [f"agent-lsp {r['version']}",
             f"endpoint: {e['base_url']} (model {e['model']}, API key {'set' if e['key_set'] else 'not set'})"]
    if not e["reachable"]:
        lines.append(f"  not reachable: {e['error']}")
    elif e["listed"] is True:
        lines.append("  reachable; the model is listed")
    elif e["listed"] is False:
        lines.append(f"  reachable; the model is NOT listed (it lists: {', '.join(e['models'][:8]) or 'nothing'})")
    else:
        lines.append(f"  reachable; no model list ({e['error']})")
    sb = r["sandbox"]
    lines.append("sandbox: " + ("not in this build" if sb is None else sb["summary"]))
    return "\n".join(lines)


def main(directory: str, as_json: bool) -> int:
    """Print the report. Text: exit 1 when the endpoint does not answer; JSON: always 0
    (the report says it, and a health check reads the report, not the exit code)."""
    r = report(Path(directory).resolve())
    print(json.dumps(r) if as_json else text(r))
    return 0 if as_json or r["endpoint"]["reachable"] else 1
