"""The unified diff a person reads before saying yes to an edit.

One text for every face that asks in words: the terminal's `allow? [y/N]`, and the
inline review's messages. Editors with a diff view of their own (VS Code's review,
the Neovim and Emacs configs, which diff the buffer against the edit they were sent)
compute theirs from what they would apply. Built on linediff.opcodes, so a rewrite of
a big file costs what the edit itself costs.
"""

from __future__ import annotations

from ..host import FileChange
from .linediff import opcodes

CONTEXT = 3
MAX_LINES = 400  # of a preview; the rest is counted, not shown
NEW_FILE_LINES = 40

RED, GREEN, CYAN, BOLD, RESET = "\x1b[31m", "\x1b[32m", "\x1b[36m", "\x1b[1m", "\x1b[0m"


def _lines(text: str) -> list[str]:
    return text.splitlines(keepends=True)


def _shown(line: str) -> str:
    body = line.rstrip("\r\n")
    return body if line.endswith(("\n", "\r")) else body + "\n\\ No newline at end of file"


def _hunks(ops: list[tuple[str, int, int, int, int]], context: int) -> list[list[tuple[str, int, int, int, int]]]:
    """Group the changes with `context` equal lines around each, as `diff -u` does."""
    groups: list[list[tuple[str, int, int, int, int]]] = []
    current: list[tuple[str, int, int, int, int]] = []
    for tag, i1, i2, j1, j2 in ops:
        if tag != "equal":
            current.append((tag, i1, i2, j1, j2))
            continue
        if not current:  # leading equal run: keep its tail as context
            continue
        if i2 - i1 > 2 * context:
            current.append(("equal", i1, i1 + context, j1, j1 + context))
            groups.append(current)
            current = []
        else:
            current.append((tag, i1, i2, j1, j2))
    if current:
        if current[-1][0] == "equal":
            tag, i1, i2, j1, j2 = current[-1]
            current[-1] = (tag, i1, min(i2, i1 + context), j1, min(j2, j1 + context))
        groups.append(current)
    # leading context of each group
    out = []
    for g in groups:
        tag, i1, i2, j1, j2 = g[0]
        lead = min(context, i1)
        if lead:
            g.insert(0, ("equal", i1 - lead, i1, j1 - lead, j1))
        out.append(g)
    return out


def _range(start: int, length: int) -> str:
    """A hunk side as `diff -u` writes it: `5` for one line, `4,0` for none, `5,3` otherwise."""
    if length == 1:
        return str(start + 1)
    return f"{start + 1 if length else start},{length}"


def unified(change: FileChange, *, context: int = CONTEXT, max_lines: int = MAX_LINES) -> str:
    """`--- a/path` / `+++ b/path` and its hunks; a new file shows its first lines."""
    name = change.display_path
    after = _lines(change.after)
    if change.before is None:
        shown = after[:NEW_FILE_LINES]
        rows = [f"new file: {name} ({len(after)} lines)", "--- /dev/null", f"+++ b/{name}",
                f"@@ -0,0 +1,{len(after)} @@"] + ["+" + _shown(ln) for ln in shown]
        if len(after) > len(shown):
            rows.append(f"... ({len(after) - len(shown)} more lines)")
        return "\n".join(rows)
    before = _lines(change.before)
    ops = opcodes(before, after)
    rows = [f"--- a/{name}", f"+++ b/{name}"]
    for group in _hunks(ops, context):
        i_start, j_start = group[0][1], group[0][3]
        i_len = group[-1][2] - i_start
        j_len = group[-1][4] - j_start
        rows.append(f"@@ -{_range(i_start, i_len)} +{_range(j_start, j_len)} @@")
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                rows += [" " + _shown(ln) for ln in before[i1:i2]]
                continue
            rows += ["-" + _shown(ln) for ln in before[i1:i2]]
            rows += ["+" + _shown(ln) for ln in after[j1:j2]]
    if len(rows) == 2:
        rows.append("(no change)")
    if len(rows) > max_lines:
        rows = rows[:max_lines] + [f"... ({len(rows) - max_lines} more diff lines)"]
    return "\n".join(rows)


def colour(diff: str) -> str:
    """ANSI colours for a terminal: removed red, added green, hunk headers cyan."""
    out = []
    for row in diff.split("\n"):
        if row.startswith(("--- ", "+++ ", "new file: ")):
            out.append(BOLD + row + RESET)
        elif row.startswith("@@"):
            out.append(CYAN + row + RESET)
        elif row.startswith("-"):
            out.append(RED + row + RESET)
        elif row.startswith("+"):
            out.append(GREEN + row + RESET)
        else:
            out.append(row)
    return "\n".join(out)
