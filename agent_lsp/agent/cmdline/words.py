"""The parsed form of a bash line that both parsers produce and the judge reads.

A word keeps its text as written and, when nothing in it expands at run time, its
value after quote and backslash removal: `r''m`, `\\rm` and `"rm"` all have the value
`rm`. A word whose value is None is decided only when bash runs it (a variable, a
substitution, `$'…'` quoting), so no rule can rely on it.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field

# Brace expansion that bash performs on an unquoted word: {a,b} or {1..3}.
_BRACE = re.compile(r"\{[^{}]*(?:,|\.\.)[^{}]*\}")
_GLOB = re.compile(r"[*?]|\[[^\0]*\]")  # `*`, `?`, or a bracket expression, unquoted
# Where a redirection goes that changes nothing: the bit bucket, or another of the command's own streams.
NULL_DEVICE = "/dev/null"
_FD_TARGET = re.compile(r"^(?:[0-9]+|-)$")
NETWORK_PATHS = ("/dev/tcp/", "/dev/udp/")


@dataclass(frozen=True)
class Word:
    """One shell word. `mask` marks each character of `value`: "q" quoted or escaped, " " bare."""

    text: str
    value: str | None
    mask: str = ""
    expands: tuple[str, ...] = ()  # what in it expands at run time, as written ("$x", "$(id)")
    glob: bool = field(init=False, default=False)  # pathname expansion may replace it (a bare `*`, `?`, `[…]`)
    brace: bool = field(init=False, default=False)  # brace expansion makes it several words (`{rm,-rf}`)

    def __post_init__(self) -> None:
        value = self.value
        if value is None:
            return
        if any(c in value for c in "*?["):
            object.__setattr__(self, "glob", bool(_GLOB.search(self.bare_text())))
        if "{" in value:
            object.__setattr__(self, "brace", bool(_BRACE.search(self.bare_text())))

    @property
    def literal(self) -> bool:
        """Its value is known before bash runs: no expansion, no brace expansion."""
        return self.value is not None and not self.brace

    def bare_text(self) -> str:
        """The value with quoted characters blanked out (for spotting bare `{`, `*`)."""
        assert self.value is not None
        if "q" not in self.mask:
            return self.value
        return "".join(c if m != "q" else "\0" for c, m in zip(self.value, self.mask))


def literal_word(text: str) -> Word:
    """A word made of plain characters (no quoting involved)."""
    return Word(text, text, " " * len(text))


def visible(text: str) -> str:
    """`text` with every invisible or control character shown as <U+XXXX> (never interpreted by a terminal)."""
    return "".join(f"<U+{ord(c):04X}>" if _invisible(c) else c for c in text)


def _invisible(ch: str) -> bool:
    category = unicodedata.category(ch)
    return category in ("Cc", "Cf", "Co", "Cs", "Zl", "Zp") or (category == "Zs" and ch != " ")


def suspicious_chars(text: str) -> str | None:
    """A one-line reason when `text` holds characters a person cannot see or tell apart."""
    if text.isascii() and text.isprintable():
        return None
    for ch in text:
        if ch in "\t\n":
            continue
        if _invisible(ch):
            return f"it contains the invisible character U+{ord(ch):04X}"
    return None


@dataclass(frozen=True)
class Redirect:
    """`2>&1`, `> out`, `<<EOF`: `op` without the descriptor, `target` the word it names (None for here-docs)."""

    text: str
    op: str
    target: Word | None = None
    body: str = ""  # a here-document's text

    def harmless(self) -> bool:
        """Only to /dev/null, or between the command's own streams (`2>&1`, `>&-`)."""
        if self.op in ("<<", "<<-", "<<<"):
            return False  # here-documents and here-strings feed text to the command
        if self.op.endswith("&-"):
            return True
        if self.target is None or not self.target.literal:
            return False
        value = self.target.value or ""
        if self.op in (">&", "<&") and _FD_TARGET.match(value):
            return True
        return value == NULL_DEVICE

    def writes(self) -> bool:
        """Does it write to a file (not /dev/null, not another stream)?"""
        return not self.harmless() and (">" in self.op) and self.op not in ("<<", "<<-", "<<<")

    def fed_text(self) -> str | None:
        """The text a here-document or here-string feeds the command, else None."""
        if self.op in ("<<", "<<-"):
            return self.body
        if self.op == "<<<":
            return self.target.text if self.target is not None else ""
        return None

    def reason(self) -> str:
        """Why an allow rule does not cover a command with this redirection."""
        value = self.target.value if self.target is not None else None
        if value and value.startswith(NETWORK_PATHS):
            return f"`{self.text}` opens a network connection"
        if self.op in ("<<", "<<-"):
            return f"`{self.op}` feeds a here-document to the command"
        if self.op == "<<<":
            return f"`{self.text}` feeds a here-string to the command"
        if self.op.startswith("<") and self.op != "<>":
            return f"`{self.text}` reads a file into the command"
        return f"`{self.text}` writes to a file"


@dataclass
class SimpleCommand:
    """One simple command: its words (program first), `VAR=` prefixes and redirections."""

    text: str
    words: list[Word] = field(default_factory=list)
    assignments: list[str] = field(default_factory=list)
    redirects: list[Redirect] = field(default_factory=list)

    def values(self) -> list[str] | None:
        """The words' values, or None when one of them is decided only at run time."""
        if not all(w.literal for w in self.words):
            return None
        return [w.value or "" for w in self.words]


@dataclass
class Parsed:
    """A whole line: its simple commands (those inside substitutions too) and what else it holds.

    `constructs`: one reason per piece of the line that is not a plain simple command
    (a declaration, `[[ ]]`, a function, ...): an allow rule never covers the line then.
    `error`: the line cannot be judged (a syntax error, or more than the plain parser
    reads, then `doubt` is True); nothing in `commands` is complete then.
    """

    commands: list[SimpleCommand] = field(default_factory=list)
    constructs: list[str] = field(default_factory=list)
    error: str | None = None
    doubt: bool = False
    assigned: list[str] = field(default_factory=list)  # shell variables the line sets (prefixes, loops, declarations)
