"""Reading the options of the wrappers `unwrap` follows, exactly where their syntax is known.

An option not listed here could take the next word as its value, so `Unknown` is raised
rather than guessing which word is the program.
"""

from __future__ import annotations

import re

from .words import Word, literal_word

ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")


class Unknown(Exception):
    """An option whose syntax is not known here, or a word decided at run time."""


def read_options(args: list[Word], *, flags: str = "", values: str = "", optional: str = "",
             long_flags: frozenset[str] | set[str] = frozenset(), long_values: frozenset[str] | set[str] = frozenset(),
             long_optional: frozenset[str] | set[str] = frozenset(), digits: bool = False) -> int:
    """The index of the first word after the options; raises Unknown for what it cannot read."""
    i = 0
    while i < len(args):
        w = args[i]
        if not w.literal:
            raise Unknown(f"`{w.text}` may be an option or the program")
        v = w.value or ""
        if v == "--":
            return i + 1
        if not v.startswith("-") or v == "-":
            return i
        if v.startswith("--"):
            key = v[2:].split("=", 1)[0]
            if key in long_flags or key in long_optional:
                i += 1
            elif key in long_values:
                i += 1 if "=" in v else 2
            else:
                raise Unknown(f"the option `{v}` is not one this judge reads")
            continue
        if digits and v[1:].isdigit():
            i += 1
            continue
        j = 1
        while j < len(v):
            c = v[j]
            if c in flags:
                j += 1
            elif c in optional:
                break
            elif c in values:
                if j == len(v) - 1:
                    i += 1  # the value is the next word
                break
            else:
                raise Unknown(f"the option `-{c}` is not one this judge reads")
        i += 1
    return i


def sudo_start(name: str, args: list[Word]) -> tuple[int | None, str | None]:
    """Where the program starts in `sudo …`/`doas …` args; or None and a hiding place."""
    if name == "doas":
        i = read_options(args, flags="ns", values="uC")
    else:
        i = read_options(args, flags="AbEHnPSiskKlvBe", values="ugCDhprtTU",
                     long_flags={"login", "shell", "non-interactive", "stdin", "background", "askpass", "bell",
                                 "edit", "list", "validate", "reset-timestamp", "remove-timestamp", "set-home"},
                     long_values={"user", "group", "chdir", "prompt", "close-from", "role", "type", "other-user",
                                  "host", "command-timeout"}, long_optional={"preserve-env"})
    opts = {w.value for w in args[:i]}
    while i < len(args) and args[i].literal and ENV_NAME.match(args[i].value or ""):
        i += 1
    if i >= len(args):
        if opts & {"-s", "-i", "--shell", "--login"}:
            return None, f"`{name} -s` runs a shell that reads commands from its input"
        return None, None
    return i, None


def env_start(args: list[Word]) -> tuple[int | None, list[Word] | None]:
    """Where the program starts in `env …` args; or None and the words of `-S STRING` (shell-like code)."""
    i = 0
    while i < len(args) and args[i].literal:
        v = args[i].value or ""
        if v == "--":
            i += 1
            break
        if not v.startswith("-") or v == "-":
            if v != "-":
                break
            i += 1  # `env -` is `env -i`
            continue
        split: str | None = None
        if v.startswith("--"):
            key = v[2:].split("=", 1)[0]
            if key == "split-string":
                split = v.split("=", 1)[1] if "=" in v else None
            elif key in ("ignore-environment", "null", "debug"):
                i += 1
                continue
            elif key in ("unset", "chdir"):
                i += 1 if "=" in v else 2
                continue
            else:
                raise Unknown(f"the option `{v}` is not one this judge reads")
        else:
            j = 1
            while j < len(v) and v[j] in "i0v":
                j += 1
            if j == len(v):
                i += 1
                continue
            if v[j] in "uC":
                i += 1 if j + 1 < len(v) else 2
                continue
            if v[j] != "S":
                raise Unknown(f"the option `-{v[j]}` is not one this judge reads")
            split = v[j + 1:] or None
        # -S / --split-string: the string is split into words and run, then the remaining arguments
        first = literal_word(split) if split is not None else (args[i + 1] if i + 1 < len(args) else None)
        return None, ([first] + args[i + (1 if split is not None else 2):] if first is not None else None)
    while i < len(args) and args[i].literal and ENV_NAME.match(args[i].value or ""):
        i += 1
    return (i if i < len(args) else None), None


def shell_code(name: str, args: list[Word]) -> tuple[Word | None, str | None]:
    """The code word of `sh -c CODE`; or None and a hiding place (a shell reading its input)."""
    code_flag = False
    i = 0
    while i < len(args):
        w = args[i]
        if not w.literal:
            break
        v = w.value or ""
        if v == "--":
            i += 1
            break
        if v in ("-o", "+o", "--rcfile", "--init-file", "-O", "+O"):
            i += 2
            continue
        if v.startswith("--"):
            i += 1
            continue
        if len(v) > 1 and v[0] in "-+":
            code_flag = code_flag or "c" in v[1:]
            if "s" in v[1:] and v[0] == "-" and not code_flag:
                return None, f"`{name} -s` runs commands from its input"
            i += 1
            continue
        break
    rest = args[i:]
    if code_flag:
        return (rest[0] if rest else None), None
    if rest and not rest[0].literal:
        return None, f"`{name}` runs a script `{rest[0].text}` decided when the line runs"
    return None, (f"`{name}` with no script runs commands from its input" if not rest else None)
