"""Text shown to a person with its control characters made visible, never obeyed by the terminal.

A command, a diff, a file name or a tool's output can hold escape sequences: `\\x1b[2K\\r`
erases the line a question was printed on, `\\x1b]52;...` writes the clipboard, a bare
`\\r` prints the harmless half of a command over the dangerous half, and bidirectional
overrides (U+202E) reorder what is read. Before anything reaches the person's terminal,
each such character is shown as text: C0 controls in caret notation (`\\x1b` -> `^[`,
`\\r` -> `^M`, DEL -> `^?`), C1 controls and Unicode format characters as `\\u009b`.
Newlines stay (the text keeps its lines); a tab stays.
"""

from __future__ import annotations

import re

# C0 but \t and \n, DEL, C1, and the invisible/reordering format characters
_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f\x80-\x9f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff\ufff9-\ufffb]")


def _shown(m: re.Match[str]) -> str:
    ch = m.group(0)
    code = ord(ch)
    if code < 0x20:
        return "^" + chr(code + 0x40)
    if code == 0x7F:
        return "^?"
    return f"\\u{code:04x}"


def visible(text: str) -> str:
    """`text` with every control or reordering character replaced by a visible spelling."""
    return _UNSAFE.sub(_shown, text)


def has_controls(text: str) -> bool:
    return _UNSAFE.search(text) is not None
