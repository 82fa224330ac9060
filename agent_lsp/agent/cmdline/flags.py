"""A command in one spelling, for deny rules: program base name, a set of flags, the operands.

`rm -fr x`, `rm -r -f x`, `rm x --recursive --force` and `rm --recur -f x` all have the
shape `rm {-r, -f} [x]`, so `bash(rm -rf*)` denies each. Short flags are split (`-rf` is
`-r -f`) except for programs whose single-dash options are long ones (`find -delete`);
long options map to their short twin where the program has one (GNU abbreviations
included). git's global options (`-C dir`, `-c k=v`, `--git-dir=…`) are flags, so the
subcommand is the first operand: `git -C . push` has the operands `[push]`.
A word decided at run time is an operand None, and the shape is `unknown` then.
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass, field

# Long options with a short twin, per program (only those deny rules are usually about).
LONG_TO_SHORT: dict[str, dict[str, str]] = {
    "rm": {"recursive": "-r", "force": "-f", "dir": "-d", "interactive": "-i", "verbose": "-v"},
    "cp": {"recursive": "-r", "force": "-f", "archive": "-a"},
    "mv": {"force": "-f"},
    "chmod": {"recursive": "-R"},
    "chown": {"recursive": "-R"},
    "git": {"force": "-f", "delete": "-d", "all": "-a", "mirror": "--mirror"},
    "shred": {"remove": "-u", "force": "-f"},
}
SHORT_ALIASES: dict[str, dict[str, str]] = {"rm": {"-R": "-r"}, "cp": {"-R": "-r"}}
# Programs whose single-dash words are whole options (`find -delete`, `java -jar`), not clusters.
SINGLE_DASH_LONG = frozenset({"find", "java", "javac", "gcc", "g++", "cc", "clang", "clang++", "ffmpeg", "ffprobe",
                              "xdotool", "go", "tcpdump", "iptables", "ip"})
GIT_VALUE_OPTIONS = frozenset({"-C", "-c", "--git-dir", "--work-tree", "--namespace", "--config-env",
                               "--super-prefix", "--list-cmds", "--attr-source"})


@dataclass
class Shape:
    program: str
    flags: set[str] = field(default_factory=set)
    operands: list[str | None] = field(default_factory=list)
    unknown: bool = False  # some word is decided at run time, or more arguments come then


def shape(values: list[str | None], open_args: bool = False) -> Shape:
    """The shape of a command given as its words' values (None: decided at run time)."""
    program = posixpath.basename(values[0] or "") or (values[0] or "") if values else ""
    out = Shape(program, unknown=open_args or any(v is None for v in values))
    rest = list(values[1:])
    i = 0
    if program == "git":
        while i < len(rest) and rest[i] is not None and rest[i].startswith("-"):
            v = rest[i]
            out.flags.add(v.split("=", 1)[0])
            i += 2 if v in GIT_VALUE_OPTIONS and "=" not in v else 1
    ended = False
    for v in rest[i:]:
        if v is None:
            out.operands.append(None)
        elif ended or not v.startswith("-") or v == "-":
            out.operands.append(v)
        elif v == "--":
            ended = True
        elif v.startswith("--"):
            out.flags.add(_long(program, v[2:].split("=", 1)[0]))
        elif program in SINGLE_DASH_LONG or not v[1:].isalpha():
            out.flags.add(v)
        else:
            for c in v[1:]:
                flag = "-" + c
                out.flags.add(SHORT_ALIASES.get(program, {}).get(flag, flag))
    return out


def _long(program: str, key: str) -> str:
    table = LONG_TO_SHORT.get(program, {})
    if key in table:
        return table[key]
    matches = [name for name in table if name.startswith(key)] if len(key) >= 2 else []
    if len(matches) == 1:  # GNU getopt takes an unambiguous prefix: --recur is --recursive
        return table[matches[0]]
    return "--" + key
