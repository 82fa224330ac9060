"""The rule a "this session" / "always" answer remembers for a command a person allowed once.

The rule is as wide as a person would mean — `python3 -m pytest -q` becomes
`bash(python3 -m pytest*)`, `git status --short` becomes `bash(git status*)` — but never
wider than what stays fixed: for a program that runs code chosen by its arguments or
input (an interpreter with `-c`/`-e`, a shell, `env`, `xargs`, `sudo`, `find -exec`,
`git -c`, `npx`, ...) it is the exact command, and for an interpreter reading its input
(`python3`, `bash` alone) there is no rule to offer at all. A prefix keeps the script or
module fixed (`python3 script.py*`, `uv run pytest*`). Each offer is checked to cover the
command it came from, so a "yes, always" is never a rule that asks again.
"""

from __future__ import annotations

import re
import shlex

from . import risky
from .patterns import covers, parse_rule
from .words import suspicious_chars

# The second word picks what they do (`git status`, `cargo test`); `run X` picks it for these.
SUBCOMMAND_TOOLS = frozenset({
    "git", "npm", "pnpm", "yarn", "bun", "deno", "cargo", "go", "docker", "podman", "kubectl",
    "make", "pip", "pip3", "uv", "poetry", "dotnet", "mvn", "gradle", "./gradlew", "just",
    "gh", "hatch", "tox", "nox", "rustup", "brew", "apt", "apt-get", "systemctl", "terraform", "helm",
})
RUN_TOOLS = frozenset({"npm", "pnpm", "yarn", "bun", "uv", "poetry", "hatch", "cargo"})
# Interpreters whose first operand is a script file (so a prefix with it keeps the code fixed).
SCRIPT_INTERPRETERS = frozenset({"node", "nodejs", "ruby", "perl", "php", "lua", "luajit", "Rscript", "julia",
                                 "tclsh", "osascript", "groovy", "swift", "elixir", "qjs"})
PYTHON_PLAIN_FLAGS = frozenset({"-u", "-B", "-q", "-I", "-E", "-s", "-S", "-O", "-OO", "-b", "-bb", "-P"})
GIT_CODE_SUBCOMMANDS = frozenset({"config", "submodule", "bisect", "filter-branch", "filter-repo", "difftool",
                                  "mergetool", "daemon", "instaweb", "send-email", "credential", "hook", "alias"})
GIT_PLAIN_OPTIONS = frozenset({"--no-pager", "-P", "--version", "--help", "-h", "--no-optional-locks",
                               "--no-replace-objects", "--literal-pathspecs", "--no-advice"})
_MODULE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$")
_PLAIN_WORD = re.compile(r"^[A-Za-z0-9][A-Za-z0-9:_.-]*$")
_SCRIPT = re.compile(r"^[A-Za-z0-9_./@+-][A-Za-z0-9_./@+-]*$")
_EXACT, _NONE = "exact", "none"


def offer_rule(values: list[str]) -> str | None:
    """The rule for this plain command (its words' values), or None when none should be remembered."""
    if not values or any(suspicious_chars(v) for v in values) or not values[0].isascii():
        return None  # what the person saw may not be what runs: allow it once at most
    keep = _prefix(values)
    if keep == _NONE:
        return None
    pattern = parse_rule(rule_text(values, prefix=False))
    exact_ok = pattern is not None and covers(pattern, values)[0]
    if keep != _EXACT:
        rule = rule_text(list(keep), prefix=True)
        pattern = parse_rule(rule)
        if pattern is not None and covers(pattern, values)[0]:
            return rule
    return rule_text(values, prefix=False) if exact_ok else None


def rule_text(words: list[str], prefix: bool) -> str:
    """`bash(npm test*)`: the words quoted so that `*`, spaces and quotes in them stay literal."""
    body = " ".join(shlex.quote(w) for w in words)
    return f"bash({body}{'*' if prefix else ''})"


def _prefix(values: list[str]) -> list[str] | str:
    name, rest = risky.base(values[0]), values[1:]
    if risky.PYTHON.match(name):
        return _python(values)
    if name in SCRIPT_INTERPRETERS or name in risky.SHELL_PROGRAMS:
        if not rest:
            return _NONE  # reads the program from its input
        return [values[0], rest[0]] if _SCRIPT.match(rest[0]) and not rest[0].startswith("-") else _EXACT
    if name in risky.INTERPRETERS or name in risky.RUNNERS:
        return _EXACT if rest else _NONE
    if name == "find":
        return _EXACT if set(rest) & {"-exec", "-execdir", "-ok", "-okdir", "-delete"} else [values[0]]
    if name == "git":
        return _git(values)
    if name in risky.RUN_SUBCOMMANDS and rest and rest[0] in risky.RUN_SUBCOMMANDS[name]:
        if len(rest) > 1 and _PLAIN_WORD.match(rest[1]) and not risky.runs_code(rest[1:]):
            return [values[0], rest[0], rest[1]]
        return _EXACT
    if name in risky.CODE_SUBCOMMANDS and rest and rest[0] in risky.CODE_SUBCOMMANDS[name]:
        return _EXACT
    if name in SUBCOMMAND_TOOLS or values[0] in SUBCOMMAND_TOOLS:
        keep = [values[0]]
        if rest and _PLAIN_WORD.match(rest[0]):
            keep.append(rest[0])
            if name in RUN_TOOLS and rest[0] in ("run", "exec", "x") and len(rest) > 1 and _PLAIN_WORD.match(rest[1]):
                keep.append(rest[1])
        return keep
    return [values[0]]


def _git(values: list[str]) -> list[str] | str:
    """`git status*`, `git --no-pager log*`, `git --version*`; the exact command for `git -c …`,
    `git -C …` and subcommands that run or configure programs (`config`, `submodule foreach`)."""
    i = 1
    while i < len(values) and values[i] in GIT_PLAIN_OPTIONS:
        i += 1
    if i < len(values) and (values[i].startswith("-") or values[i] in GIT_CODE_SUBCOMMANDS):
        return _EXACT
    if i < len(values) and not _PLAIN_WORD.match(values[i]):
        return _EXACT
    return values[:i + 1]


def _python(values: list[str]) -> list[str] | str:
    i = 1
    while i < len(values) and values[i] in PYTHON_PLAIN_FLAGS:
        i += 1
    if i == len(values):
        return _NONE  # `python3` alone reads its program from its input
    v = values[i]
    if v == "-m":
        module = values[i + 1] if i + 1 < len(values) else ""
        if not _MODULE.match(module) or module.split(".")[0] in risky.CODE_MODULES:
            return _EXACT
        return values[:i + 2]
    if v.startswith("-") or not _SCRIPT.match(v):
        return _EXACT  # -c CODE, -W, -X, ...: the exact command only
    return values[:i + 1]
