"""web_search and fetch_url: optional, off unless the `web_tools` setting is on.

A URL can carry data out of the workspace, so when they are on they are gated like
commands. ddgs is imported lazily: the agent needs nothing extra until they are used.
"""

from __future__ import annotations

import asyncio
import html
import re

import httpx

from ..context import ToolContext
from ..registry import tool

PAGE_CHARS = 10_000
MAX_BYTES = 4_000_000
USER_AGENT = "agent-lsp/0.1 (+coding agent; text only)"


@tool(
    "Search the web. Returns numbered title / url / snippet results; fetch_url the ones that matter.",
    read_only=True,
    gated=True,
    group="web",
    query="the search query, as typed into a search box",
    max_results="how many results (default 5, at most 25)",
)
async def web_search(ctx: ToolContext, query: str, max_results: int = 5) -> str:
    try:
        from ddgs import DDGS  # type: ignore[import-not-found]
    except ImportError:
        return "error: web search needs the ddgs package (pip install 'agent-lsp[web]')"
    n = max(1, min(max_results, 25))

    def search() -> list[dict]:
        return DDGS(timeout=30).text(query, max_results=n) or []

    try:
        hits = await asyncio.to_thread(search)
    except Exception as e:  # rate limits, captchas, DNS
        return f"error: search failed: {type(e).__name__}: {e}"
    out = [
        f"{i}. {h.get('title', '')}\n   {h.get('href', '')}\n   {' '.join((h.get('body') or '').split())}"
        for i, h in enumerate(hits, 1)
    ]
    return "\n".join(out) or "(no results)"


def html_to_text(body: str) -> str:
    """Crude but dependency-free: drop chrome and scripts, keep <main>/<article> when present."""
    body = re.sub(r"(?is)<(script|style|noscript|svg|head|nav|footer|aside|form)\b.*?</\1>", " ", body)
    main = re.search(r"(?is)<(main|article)\b.*?</\1>", body)
    body = main.group(0) if main else body
    body = re.sub(r"(?i)<br\s*/?>|</(p|div|li|tr|h[1-6])>", "\n", body)
    body = html.unescape(re.sub(r"(?s)<!--.*?-->|<[^>]+>", " ", body))
    return "\n".join(ln.strip() for ln in re.sub(r"[ \t]+", " ", body).splitlines() if ln.strip())


@tool(
    "Fetch a web page as plain text (tags and scripts stripped), 10,000 characters at a time.",
    read_only=True,
    gated=True,
    group="web",
    url="absolute http:// or https:// URL",
    start="character offset to continue from (default 0)",
)
async def fetch_url(ctx: ToolContext, url: str, start: int = 0) -> str:
    if not url.startswith(("http://", "https://")):
        return "error: url must start with http:// or https://"
    try:
        async with httpx.AsyncClient(timeout=30, follow_redirects=True, headers={"User-Agent": USER_AGENT}) as c:
            async with c.stream("GET", url) as r:
                r.raise_for_status()
                kind = r.headers.get("content-type", "").split(";")[0].strip().lower()
                if not (kind.startswith("text/") or "json" in kind or "xml" in kind):
                    return f"error: {kind or 'unknown content'} is not text"
                buf = bytearray()
                async for chunk in r.aiter_bytes():
                    buf += chunk
                    if len(buf) >= MAX_BYTES:
                        del buf[MAX_BYTES:]
                        break
                body = buf.decode(r.encoding or "utf-8", "replace")
    except httpx.HTTPError as e:
        return f"error: fetch failed: {type(e).__name__}: {e}"
    text = html_to_text(body) if kind.startswith("text/html") else body
    start = max(start, 0)
    out = text[start : start + PAGE_CHARS]
    if len(text) > start + PAGE_CHARS:
        out += f"\n...[{len(text) - start - PAGE_CHARS} more chars; continue with start={start + PAGE_CHARS}]"
    return out or "(no text on page)"
