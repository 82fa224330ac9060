"""Common secret formats, and text with them taken out (for anything kept in a file).

The agent's own key is removed by `Settings.scrub`; this module removes the secrets a
task may come across in the workspace or a command's output — the ones that are worth
stealing from a note kept across sessions (memory) or a log. Each format is matched by
its own shape, so ordinary text is left alone; the secret's kind stays visible
(`[redacted aws-key]`) so a note still says what was there.
"""

from __future__ import annotations

import re

REDACTED = "[redacted {}]"

# (kind, pattern); the group named `secret`, when present, is the part replaced.
_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("private-key", re.compile(
        r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----.*?(?:-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|\Z)",
        re.S)),
    ("aws-key", re.compile(r"\b(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AIPA|ANPA|ANVA|AROA|APKA|ASCA)[A-Z0-9]{16}\b")),
    ("aws-secret", re.compile(
        r"(?i)(?:aws_secret_access_key|aws_secret|secret_access_key)[\"']?\s*[:=]\s*[\"']?(?P<secret>[A-Za-z0-9/+=]{40})")),
    ("github-token", re.compile(r"\b(?:gh[pousr]_[A-Za-z0-9]{20,255}|github_pat_[A-Za-z0-9_]{20,255})")),
    ("slack-token", re.compile(r"\bxox[abposr]-[A-Za-z0-9-]{8,}")),
    ("api-key", re.compile(r"\bsk-(?:[A-Za-z0-9_-]*-)?[A-Za-z0-9_-]{16,}")),
    ("google-key", re.compile(r"\bAIza[0-9A-Za-z_-]{35}\b")),
    ("token", re.compile(r"(?i)\b(?:authorization\s*[:=]\s*(?:bearer|basic|token)?|bearer)\s+[\"']?(?P<secret>[A-Za-z0-9._~+/=-]{8,})")),
    ("token", re.compile(r"(?i)\bauthorization[\"']?\s*[:=]\s*[\"']?(?P<secret>(?!bearer\b|basic\b|token\b)[^\s\"']{8,})")),
    ("password", re.compile(r"(?i)\b[a-z][a-z0-9+.-]*://[^\s:/@\"']+:(?P<secret>[^\s@/\"']+)@")),
    ("password", re.compile(r"(?i)\b(?:password|passwd|pwd|secret|api[_-]?key|access[_-]?token)[\"']?\s*[:=]\s*[\"']?(?P<secret>[^\s\"',;]{6,})")),
)


def scrub_secrets(text: str) -> str:
    """`text` with every secret of a known format replaced by `[redacted <kind>]`."""
    for kind, pattern in _PATTERNS:
        mark = REDACTED.format(kind)

        def one(m: re.Match[str], mark: str = mark) -> str:
            if "secret" in pattern.groupindex and m.group("secret") is not None:
                if m.group("secret").startswith("[redacted"):
                    return m.group(0)
                start, end = m.span("secret")
                whole = m.group(0)
                return whole[: start - m.start()] + mark + whole[end - m.start():]
            return mark

        text = pattern.sub(one, text)
    return text


def has_secret(text: str) -> bool:
    """Does `text` hold a secret of a known format? (What scrub_secrets would change.)"""
    return scrub_secrets(text) != text
