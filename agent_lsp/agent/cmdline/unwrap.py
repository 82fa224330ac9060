"""What really runs behind a simple command: the program under `env`, `sudo`, `xargs`,
`timeout`, `sh -c '…'`, `eval`, `find -exec`, and where a program may hide from view.

`what_runs(["env", "FOO=1", "nice", "-n", "5", "/bin/rm", "-rf", "x"])` lists `env …`,
`nice …` and `/bin/rm -rf x`, so a deny rule on `rm` sees the `rm`. Options of the
wrappers are read exactly where their syntax is known; an option this module does not
know could take the next word as its value, so it is reported as a hiding place instead
of guessed past. For wrappers whose options are not modelled (`strace`, `flock`, `chroot`,
`uv run`, ...) every later word is tried as the program ("loose" guesses: a deny rule
that matches one of them still denies; over-matching is the safe side).

Shell code in a literal string (`sh -c`, `eval`, `env -S`, `git submodule foreach`) is
handed back in `nested` for the judge to parse; a non-literal one is a hiding place.
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass, field

from .options import ENV_NAME, Unknown, env_start, read_options, shell_code, sudo_start
from .words import Word, literal_word

SHELLS = frozenset({"sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "yash", "posh", "rbash", "fish", "csh", "tcsh"})
# Programs that run another program given as a later argument, with options this module does not read.
LOOSE_WRAPPERS = frozenset({
    "chrt", "taskset", "flock", "unshare", "nsenter", "firejail", "bwrap", "proot", "fakeroot", "faketime",
    "catchsegv", "numactl", "systemd-run", "setpriv", "unbuffer", "rlwrap", "chroot", "strace", "ltrace",
    "valgrind", "perf", "gdb", "script", "watch", "parallel", "su", "runuser", "sg", "pkexec", "torsocks",
    "proxychains", "proxychains4", "tsp", "entr", "xvfb-run", "dbus-run-session", "cgexec", "sem", "ssh",
    "caffeinate", "npx", "bunx", "pnpx", "uvx", "with-contenv", "tini", "dumb-init", "expect", "busybox",
})
# Tools whose subcommand runs the program named after it (`uv run pytest`, `npm exec -- tsc`).
RUN_SUBCOMMANDS = {
    "uv": {"run", "tool"}, "poetry": {"run"}, "pipenv": {"run"}, "pdm": {"run"}, "hatch": {"run"},
    "conda": {"run"}, "mamba": {"run"}, "pipx": {"run"}, "npm": {"exec", "x"}, "pnpm": {"exec", "dlx"},
    "yarn": {"exec", "dlx"}, "bun": {"x", "run"}, "bundle": {"exec"}, "docker": {"run", "exec"},
    "podman": {"run", "exec"}, "kubectl": {"exec"}, "nix": {"run", "shell", "develop"}, "deno": {"run"},
}
MAX_DEPTH = 12
# Builtins that change what a later command name runs (`hash -p FILE rm`, `enable -f lib.so rm`).
SHELL_STATE = frozenset({"hash", "enable", "shopt", "alias"})


def _changes_names(name: str, args: list[Word]) -> bool:
    values = [w.value if w.literal else None for w in args]
    if name == "hash":
        return any(v is None or v.startswith("-p") for v in values)
    if name == "enable":
        return any(v is None or v.startswith("-f") for v in values)
    if name == "shopt":
        return "-s" in values and any(v is None or v == "expand_aliases" for v in values)
    return bool(args)  # alias NAME=...


@dataclass
class Invocation:
    """One program that runs, with its arguments; `via` names the wrappers around it."""

    words: list[Word]
    via: tuple[str, ...] = ()
    open_args: bool = False  # more arguments arrive when it runs (xargs, find -exec … +)
    loose: bool = False  # one guess among several (see the module docstring)

    @property
    def program(self) -> str | None:
        """The base name of what runs: `/bin/rm` and `./rm` are `rm`; None when it is decided at run time."""
        first = self.words[0] if self.words else None
        if first is None or not first.literal or first.glob:
            return None  # `$x`, `$(…)`, `{rm,-rf}` or `/bin/r?`: only bash knows
        return posixpath.basename(first.value or "") or first.value

    def values(self) -> list[str | None]:
        """Each word's value; None for one decided at run time (an expansion, a file-name pattern)."""
        return [w.value if w.literal and not w.glob else None for w in self.words]


@dataclass
class WhatRuns:
    invocations: list[Invocation] = field(default_factory=list)
    nested: list[tuple[str, tuple[str, ...]]] = field(default_factory=list)  # shell code it runs, and via
    hidden: list[str] = field(default_factory=list)  # where a program may hide: one reason each


def what_runs(words: list[Word], via: tuple[str, ...] = (), open_args: bool = False) -> WhatRuns:
    """The command itself first, then each program it hands control to."""
    out = WhatRuns()
    current = list(words)
    for _ in range(MAX_DEPTH):
        if not current:
            return out
        inv = Invocation(current, via, open_args=open_args)
        out.invocations.append(inv)
        name = inv.program
        if name is None:
            out.hidden.append(f"the program `{current[0].text}` is decided only when the line runs")
            return out
        try:
            step = _step(name, current[1:], out, via)
        except Unknown as e:
            out.hidden.append(f"`{name}`: {e}")
            return out
        if step is None:
            return out
        current, more = step
        open_args = open_args or more
        via = via + (name,)
    out.hidden.append("wrappers nest too deeply to follow")
    return out


def _follow(words: list[Word], out: WhatRuns, via: tuple[str, ...], **kw) -> None:
    """Add what `words` runs (a command found inside another's arguments) to `out`."""
    inner = what_runs(words, via, **kw)
    out.invocations += inner.invocations
    out.nested += inner.nested
    out.hidden += inner.hidden


def _step(name: str, args: list[Word], out: WhatRuns, via: tuple[str, ...]) -> tuple[list[Word], bool] | None:
    """The words of the program `name` runs next (and whether it gets more args at run time), or None."""
    if name in ("command",):
        i = read_options(args, flags="pvV")
        if any(w.value in ("-v", "-V") for w in args[:i]):
            return None  # `command -v rm` only looks the name up
        return args[i:], False
    if name == "builtin" or name == "coproc" or name == "nohup":
        return (args[1:] if args and args[0].value == "--" else args), False
    if name == "exec":
        return args[read_options(args, flags="cl", values="a"):], False
    if name == "nice":
        return args[read_options(args, values="n", long_values={"adjustment"}, digits=True):], False
    if name == "time":
        return args[read_options(args, flags="pvqa", values="fo", long_flags={"portability", "verbose", "quiet", "append"},
                             long_values={"format", "output"}):], False
    if name == "timeout":
        i = read_options(args, flags="v", values="sk", long_flags={"foreground", "preserve-status", "verbose"},
                     long_values={"signal", "kill-after"})
        return args[i + 1:], False  # the duration, then the program
    if name == "stdbuf":
        return args[read_options(args, values="ioe", long_values={"input", "output", "error"}):], False
    if name == "setsid":
        return args[read_options(args, flags="cfw", long_flags={"ctty", "fork", "wait"}):], False
    if name == "ionice":
        i = read_options(args, flags="t", values="cnpPu", long_flags={"ignore"},
                     long_values={"class", "classdata", "pid", "pgid", "uid"})
        return (None if any(w.value in ("-p", "-P", "-u") for w in args[:i]) else (args[i:], False))
    if name in ("sudo", "doas"):
        start, hidden = sudo_start(name, args)
        out.hidden += [hidden] if hidden else []
        return None if start is None else (args[start:], False)
    if name == "env":
        start, split = env_start(args)
        if split is not None:
            _code(split, "env -S", out, via)
        return None if start is None else (args[start:], False)
    if name == "xargs":
        i = read_options(args, flags="0rtpxo", values="adEILnPs", optional="iel",
                     long_flags={"null", "no-run-if-empty", "verbose", "interactive", "exit", "open-tty", "show-limits"},
                     long_values={"arg-file", "delimiter", "eof", "max-lines", "max-args", "max-procs", "max-chars",
                                  "process-slot-var"}, long_optional={"replace"})
        return (args[i:] or [literal_word("echo")]), True
    if name in SHELLS:
        code, hidden = shell_code(name, args)
        out.hidden += [hidden] if hidden else []
        if code is not None:
            _code([code], f"{name} -c", out, via)
        return None
    if name == "eval":
        _code(args, "eval", out, via)
        return None
    if name in ("source", "."):
        if args and not args[0].literal:
            out.hidden.append(f"`{name}` runs a file `{args[0].text}` decided when the line runs")
        return None
    if name == "trap":
        code = [w for w in args if not (w.literal and (w.value or "").startswith("-"))][:1]
        _code(code, "trap", out, via)
        return None
    if name in SHELL_STATE and _changes_names(name, args):
        out.hidden.append(f"`{name}` changes what later command names run")
        return None
    if name == "find":
        _find(args, out, via)
        return None
    if name == "git":
        _git(args, out, via)
        return None
    if name in RUN_SUBCOMMANDS and args and args[0].value in RUN_SUBCOMMANDS[name]:
        _loose(args[1:], name + " " + (args[0].value or ""), out, via)
        return None
    if name in LOOSE_WRAPPERS:
        _loose(args, name, out, via)
        return None
    return None


def _code(words: list[Word], how: str, out: WhatRuns, via: tuple[str, ...]) -> None:
    """Shell code made of `words` (joined by spaces, as `eval` does): nested, or hidden when not literal."""
    if not words:
        return
    if not all(w.literal for w in words):
        out.hidden.append(f"`{how}` runs code that is decided only when the line runs")
        return
    out.nested.append((" ".join(w.value or "" for w in words), via + (how,)))


def _find(args: list[Word], out: WhatRuns, via: tuple[str, ...]) -> None:
    """`find … -exec CMD ;` runs CMD; `find PATHS … -delete` deletes like `rm -r -f PATHS`."""
    starts: list[Word] = []
    i = 0
    while i < len(args) and ((args[i].value or "") in ("-H", "-L", "-P") or (args[i].value or "").startswith("-O")):
        i += 1  # find's own options come before its start paths
    while i < len(args) and args[i].literal and not (args[i].value or "").startswith(("-", "(", "!", ")", ",")):
        starts.append(args[i])
        i += 1
    while i < len(args):
        v = args[i].value if args[i].literal else None
        if v in ("-exec", "-execdir", "-ok", "-okdir"):
            j = i + 1
            while j < len(args) and not (args[j].literal and args[j].value in (";", "+")):
                j += 1
            _follow(args[i + 1:j], out, via + ("find " + v,), open_args=True)
            i = j + 1
            continue
        if v == "-delete":
            # find deletes what it matches, depth first: what `rm -r -f` of its start paths does
            rm = [literal_word("rm"), literal_word("-r"), literal_word("-f")] + (starts or [literal_word(".")])
            out.invocations.append(Invocation(rm, via + ("find -delete",)))
        i += 1


def _git(args: list[Word], out: WhatRuns, via: tuple[str, ...]) -> None:
    """`git submodule foreach CMD`, `git rebase --exec CMD`, `git bisect run CMD`: what they run."""
    values = [w.value if w.literal else None for w in args]
    for opt in ("-c", "--config-env", "--exec-path"):
        if any(v == opt or (v or "").startswith(opt + "=") for v in values[:_git_subcommand_index(values)]):
            out.hidden.append(f"`git {opt}` can make git run any program")
    k = _git_subcommand_index(values)
    sub, rest = (values[k] if k < len(values) else None), args[k + 1:]
    if sub == "submodule" and rest and rest[0].value == "foreach":
        tail = [w for w in rest[1:] if w.value not in ("--recursive", "-q", "--quiet")]
        _code(tail, "git submodule foreach", out, via)
    elif sub == "bisect" and rest and rest[0].value == "run":
        _follow(rest[1:], out, via + ("git bisect run",))
    elif sub == "rebase":
        for n, w in enumerate(rest):
            v = w.value or ""
            if v in ("-x", "--exec") and n + 1 < len(rest):
                _code(rest[n + 1:n + 2], "git rebase --exec", out, via)
            elif v.startswith("--exec="):
                _code([literal_word(v[7:])], "git rebase --exec", out, via)


GIT_VALUE_OPTIONS = frozenset({"-C", "-c", "--git-dir", "--work-tree", "--namespace", "--config-env",
                               "--super-prefix", "--list-cmds", "--attr-source"})


def _git_subcommand_index(values: list[str | None]) -> int:
    """Where git's subcommand is, past its global options (`git -C . -c x=y push`: 4)."""
    i = 0
    while i < len(values):
        v = values[i]
        if v is None or not v.startswith("-"):
            return i
        i += 2 if v in GIT_VALUE_OPTIONS else 1
    return i


def _loose(args: list[Word], name: str, out: WhatRuns, via: tuple[str, ...]) -> None:
    """Every later literal word that is not an option may be the program (see the module docstring):
    the first is followed through its own wrappers, each later one is judged as it stands."""
    followed = False
    for i, w in enumerate(args):
        if not w.literal:
            out.hidden.append(f"`{name}` runs a program that may be `{w.text}`, decided when the line runs")
            return
        v = w.value or ""
        if v.startswith("-") or ENV_NAME.match(v):
            continue
        if " " in v.strip():
            out.nested.append((v, via + (name,)))
        if not followed:
            inner = what_runs(args[i:], via + (name,))
            for inv in inner.invocations:
                inv.loose = True
            out.invocations += inner.invocations
            out.nested += inner.nested
            out.hidden += inner.hidden
            followed = True
        else:
            out.invocations.append(Invocation(args[i:], via + (name,), loose=True))
