"""Is a model answering at the base URL? Asked before a demo or an eval, so a person gets
a sentence (and the commands to fix it) instead of a stack of retries."""

from __future__ import annotations

from ..settings import Settings


def endpoint_problem(settings: Settings) -> str | None:
    """None when something answers at the base URL; else why not, in a few words."""
    import httpx  # here, not at import: `agent-lsp serve` starts without it

    url = settings.base_url.rstrip("/") + "/models"
    headers = {"Authorization": f"Bearer {settings.api_key}"} if settings.api_key else {}
    try:
        r = httpx.get(url, headers=headers, timeout=5)
    except httpx.HTTPError as e:
        return f"{type(e).__name__}"
    if r.status_code == 401:
        return "HTTP 401: the API key is missing or wrong"
    return None
