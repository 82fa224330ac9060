"""The environment a command gets: the person's, minus anything that looks like a credential.

The agent's own key was always removed; a sandbox that hides `~/.aws` but passes
`AWS_SECRET_ACCESS_KEY` would hide nothing. So variables are dropped by name (`*_TOKEN`,
`*_SECRET`, `*_PASSWORD`, `*_API_KEY`, `AWS_*`, ...), by value (a GitHub, OpenAI, Slack or
AWS key format, a URL with a password in it, the agent's key under any name) and the
agent-socket variables that would hand out the person's SSH or GPG keys. A variable the
person names in `sandboxEnv` passes anyway: that is the opt-in (e.g. `["GH_TOKEN"]`).
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Iterable, Mapping

# whole words of a variable name (split at "_") that mark a credential
SECRET_WORDS = frozenset({
    "TOKEN", "TOKENS", "SECRET", "SECRETS", "PASSWORD", "PASSWD", "PASSPHRASE", "APIKEY",
    "CREDENTIAL", "CREDENTIALS", "PRIVATE", "AUTH",
})
# two-word sequences in a name that mark one
SECRET_PAIRS = frozenset({("API", "KEY"), ("ACCESS", "KEY"), ("SECRET", "KEY"), ("SESSION", "KEY"),
                          ("AUTH", "KEY"), ("CLIENT", "KEY"), ("SIGNING", "KEY"), ("MASTER", "KEY")})
SECRET_PREFIXES = ("AWS_", "AZURE_", "GOOGLE_APPLICATION_CREDENTIALS", "VAULT_", "OP_SESSION_")
AGENT_SOCKETS = frozenset({"SSH_AUTH_SOCK", "SSH_AGENT_PID", "GPG_AGENT_INFO", "DBUS_SESSION_BUS_ADDRESS"})
SECRET_VALUE = re.compile(
    r"^(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_\w{20,}|sk-[A-Za-z0-9_-]{16,}|xox[abposr]-[A-Za-z0-9-]{10,}"
    r"|A(?:KIA|SIA)[A-Z0-9]{16}|glpat-[A-Za-z0-9_-]{20}|npm_[A-Za-z0-9]{36})"
)
URL_PASSWORD = re.compile(r"[a-z][a-z0-9+.-]*://[^/\s:@]+:[^/\s@]+@", re.I)


@lru_cache(maxsize=4096)  # the same environment every command: decide each name once
def is_secret_name(name: str) -> bool:
    upper = name.upper()
    if upper in AGENT_SOCKETS or upper.startswith(SECRET_PREFIXES):
        return True
    words = [w for w in re.split(r"[^A-Z0-9]+", upper) if w]
    if any(w in SECRET_WORDS for w in words):
        return True
    return any(pair in SECRET_PAIRS for pair in zip(words, words[1:]))


@lru_cache(maxsize=4096)
def is_secret_value(value: str) -> bool:
    return bool(SECRET_VALUE.match(value.strip()) or URL_PASSWORD.search(value))


def scrub_env(env: Mapping[str, str], *, allow: Iterable[str] = (),
              secret_values: Iterable[str] = ()) -> tuple[dict[str, str], list[str]]:
    """The environment without credentials, and the names removed (names only, never values).

    `secret_values` are strings never to pass under any name (the agent's key). `allow`
    names pass unless they carry one of those.
    """
    allowed = set(allow)
    never = {v for v in secret_values if v and len(v) >= 4}
    out: dict[str, str] = {}
    dropped: list[str] = []
    for name, value in env.items():
        carries_key = any(v in value for v in never)
        if carries_key or (name not in allowed and (is_secret_name(name) or is_secret_value(value))):
            dropped.append(name)
            continue
        out[name] = value
    return out, dropped
