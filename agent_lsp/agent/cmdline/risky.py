"""Programs that run code chosen by their arguments or input, and options that load code.

Two uses. The rule offered for "this session"/"always" must never be a bare program
that interprets its arguments (`python3`, `bash`, `node`, `env`, `xargs`, ...): see
`offer`. And a prefix rule such as `bash(python3 -m pytest*)` must not cover an option
that makes the allowed program import or run something else (`-p plugin`, `git -c
core.pager=…`, `--exec-path`): `loading_options` names those, and the judge asks.

This is not every way a program can run code — a test runner runs the tests the
model wrote, a Makefile's recipes are the repository's — which is why commands run in
the sandbox and a rule is a convenience, not the boundary.
"""

from __future__ import annotations

import posixpath
import re

PYTHON = re.compile(r"^(python[0-9.]*|pypy[0-9.]*|py)$")
SHELL_PROGRAMS = frozenset({"sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "yash", "posh", "rbash", "fish",
                            "csh", "tcsh", "busybox", "pwsh", "powershell"})
# Interpreters: code from `-c`/`-e`, from a script named by the arguments, or from stdin.
INTERPRETERS = frozenset({"node", "nodejs", "deno", "bun", "ruby", "perl", "php", "lua", "luajit", "Rscript", "R",
                          "julia", "tclsh", "wish", "osascript", "awk", "gawk", "mawk", "nawk", "sed", "gsed",
                          "expect", "m4", "dc", "ed", "ex", "vim", "vi", "nvim", "emacs", "gdb", "sqlite3",
                          "psql", "mysql", "jshell", "groovy", "scala", "kotlin", "swift", "ghci", "runghc",
                          "irb", "erl", "elixir", "iex", "guile", "racket", "sbcl", "clisp", "ocaml", "qjs"})
# Run whatever program or package their arguments name.
RUNNERS = frozenset({"env", "xargs", "sudo", "doas", "command", "builtin", "exec", "eval", "source", ".", "nice",
                     "nohup", "time", "timeout", "stdbuf", "setsid", "ionice", "coproc", "npx", "bunx", "pnpx",
                     "uvx", "pipx", "watch", "script", "su", "runuser", "flock", "chroot", "strace", "ltrace",
                     "valgrind", "parallel", "ssh", "nsenter", "unshare", "firejail", "bwrap", "fakeroot",
                     "taskset", "chrt", "numactl", "systemd-run", "pkexec", "busybox", "entr", "perf"})
# `python3 -m X` where X runs code from its own arguments: the module does not fix what runs.
CODE_MODULES = frozenset({"pdb", "cProfile", "profile", "timeit", "trace", "runpy", "code", "IPython", "ipython",
                          "pip", "pipx", "uv", "ensurepip", "doctest", "idlelib", "xonsh", "pytest_benchmark"})
# `TOOL SUB PROGRAM ...`: the subcommand runs the program named after it.
RUN_SUBCOMMANDS = {"uv": {"run", "tool"}, "poetry": {"run"}, "pipenv": {"run"}, "pdm": {"run"}, "hatch": {"run"},
                   "conda": {"run"}, "mamba": {"run"}, "pipx": {"run"}, "npm": {"exec", "x"},
                   "pnpm": {"exec", "dlx"}, "yarn": {"exec", "dlx"}, "bun": {"x"}, "bundle": {"exec"}}
# Subcommands that run any image, command or code given by the arguments.
CODE_SUBCOMMANDS = {"docker": {"run", "exec", "compose"}, "podman": {"run", "exec"}, "kubectl": {"exec", "run"},
                    "deno": {"eval", "run", "x"}, "nix": {"run", "shell", "develop", "eval"},
                    "cargo": {"install"}, "go": {"run", "generate"}, "npm": {"install", "i", "ci"}}


# Variables that change what later programs run or load (PATH, BASH_ENV, LD_PRELOAD, GIT_*, ...).
CODE_ENV = frozenset({
    "PATH", "BASH_ENV", "ENV", "SHELLOPTS", "BASHOPTS", "PS4", "IFS", "HOME", "XDG_CONFIG_HOME", "CDPATH",
    "LD_PRELOAD", "LD_LIBRARY_PATH", "LD_AUDIT", "PYTHONPATH", "PYTHONSTARTUP", "PYTHONHOME", "PYTHONUSERBASE",
    "PERL5OPT", "PERL5LIB", "PERLLIB", "RUBYOPT", "RUBYLIB", "NODE_OPTIONS", "NODE_PATH", "PROMPT_COMMAND",
    "PAGER", "EDITOR", "VISUAL", "MANPAGER", "LESSOPEN", "LESSCLOSE", "SSH_ASKPASS", "SUDO_ASKPASS",
    "RUSTC_WRAPPER", "CC", "CXX", "MAKEFLAGS", "MFLAGS", "GNUMAKEFLAGS", "TAR_OPTIONS", "GZIP", "GREP_OPTIONS",
})
CODE_ENV_PREFIXES = ("GIT_", "LD_", "BASH_FUNC_", "npm_config_", "NPM_CONFIG_", "PIP_", "CARGO_", "UV_", "PYTEST_")


def is_code_env(name: str) -> bool:
    """Does setting this variable change what later programs run or load?"""
    return name in CODE_ENV or name.startswith(CODE_ENV_PREFIXES)


def base(program: str) -> str:
    return posixpath.basename(program) or program


def runs_code(values: list[str]) -> bool:
    """Does the program of this command run code chosen by its arguments or input?"""
    name = base(values[0])
    return bool(PYTHON.match(name)) or name in SHELL_PROGRAMS or name in INTERPRETERS or name in RUNNERS


def interprets(values: list[str]) -> bool:
    """Is the program an interpreter (its arguments may be code no judge reads: `python3 -c …`)?"""
    name = base(values[0])
    return bool(PYTHON.match(name)) or name in INTERPRETERS


def _pytest_start(values: list[str]) -> int | None:
    """Where pytest's own arguments start (`pytest …`, `python3 -m pytest …`), or None."""
    name = base(values[0])
    if name in ("pytest", "py.test"):
        return 1
    if PYTHON.match(name):
        for i, v in enumerate(values[1:-1], 1):
            if v == "-m":
                return i + 2 if values[i + 1] == "pytest" else None
            if not v.startswith("-"):
                return None
    return None


_PYTEST = {
    "-p": "makes pytest import a module", "--basetemp": "makes pytest empty and write a folder it names",
    "--junitxml": "writes a report file anywhere", "--junit-xml": "writes a report file anywhere",
    "--rootdir": "changes which configuration and conftest files pytest loads",
    "--confcutdir": "changes which conftest files pytest loads", "-c": "loads another configuration file",
    "--config-file": "loads another configuration file", "--inifile": "loads another configuration file",
    "-o": "overrides configuration (which can add plugins)", "--override-ini": "overrides configuration",
    "--pdbcls": "makes pytest import a class", "-W": "imports the warning category it names",
    "--pythonwarnings": "imports the warning category it names", "--pyargs": "imports packages by name",
    "--debug": "writes a file anywhere", "--log-file": "writes a file anywhere",
    "--report-log": "writes a file anywhere", "--result-log": "writes a file anywhere",
}
_GIT = {
    "-c": "sets configuration that can run a program (core.pager, core.fsmonitor, alias.*)",
    "--config-env": "sets configuration that can run a program", "--exec-path": "runs git programs from a folder",
    "-C": "runs in another repository (its configuration can run programs)", "--git-dir": "uses another repository",
    "--work-tree": "uses another work tree", "--upload-pack": "runs the program it names",
    "--receive-pack": "runs the program it names", "--exec": "runs the program it names",
    "--extcmd": "runs the program it names", "--open-files-in-pager": "runs the program it names",
    "-O": "runs the program it names", "--template": "installs hooks from a folder",
    "--config": "sets configuration that can run a program", "--output": "writes a file anywhere",
}
_NPM = {
    "--prefix": "runs another folder's package scripts", "-C": "runs another folder's package scripts",
    "--dir": "runs another folder's package scripts", "--cwd": "runs another folder's package scripts",
    "--script-shell": "runs scripts with the program it names", "--userconfig": "loads another configuration",
    "--globalconfig": "loads another configuration", "--node-options": "can make node load code",
    "--call": "runs shell code", "--registry": "installs packages from another registry",
}
_NODE = {"-e": "runs code from its argument", "--eval": "runs code from its argument",
         "-p": "runs code from its argument", "--print": "runs code from its argument",
         "-r": "loads a module first", "--require": "loads a module first", "--import": "loads a module first",
         "--loader": "loads a module first", "--experimental-loader": "loads a module first"}
_INTERP = {"-c": "runs code from its argument", "-e": "runs code from its argument",
           "-E": "runs code from its argument", "-r": "runs code from its argument", "-M": "loads a module first",
           "-m": "runs a module named by its argument", "-x": "runs code embedded in a file"}
_OTHERS = {
    "find": {"-exec": "runs a program for each file", "-execdir": "runs a program for each file",
             "-ok": "runs a program for each file", "-okdir": "runs a program for each file",
             "-delete": "deletes what it finds", "-fprint": "writes a file", "-fprint0": "writes a file",
             "-fprintf": "writes a file", "-fls": "writes a file"},
    "tar": {"--to-command": "runs a program", "--checkpoint-action": "can run a program",
            "-I": "runs the program it names", "--use-compress-program": "runs the program it names",
            "--rsh-command": "runs the program it names", "--info-script": "runs a script",
            "-F": "runs a script", "--new-volume-script": "runs a script", "--rmt-command": "runs a program"},
    "make": {"--eval": "adds makefile code", "-f": "reads another makefile", "--file": "reads another makefile",
             "--makefile": "reads another makefile", "-C": "runs another folder's makefile",
             "--directory": "runs another folder's makefile", "-I": "includes makefiles from a folder",
             "--include-dir": "includes makefiles from a folder"},
    "cargo": {"--config": "sets configuration that can run programs", "-Z": "enables unstable behaviour",
              "--manifest-path": "builds another package (its build script runs)", "-C": "runs in another folder"},
    "go": {"-exec": "runs the program it names", "-toolexec": "runs the program it names",
           "-overlay": "replaces source files", "-modfile": "uses another go.mod", "-C": "runs in another folder"},
    "rsync": {"-e": "runs the program it names", "--rsh": "runs the program it names",
              "--rsync-path": "runs the program it names"},
    "ssh": {"-o": "can set ProxyCommand or LocalCommand", "-F": "loads another configuration"},
    "scp": {"-o": "can set ProxyCommand", "-F": "loads another configuration", "-S": "runs the program it names"},
    "zip": {"-TT": "runs the program it names", "--unzip-command": "runs the program it names"},
    "sort": {"--compress-program": "runs the program it names", "-o": "writes a file",
             "--output": "writes a file"},
    "split": {"--filter": "runs shell code for each piece"},
}


def loading_options(values: list[str], start: int) -> list[str]:
    """Reasons, one per option at index ≥ `start`, that make the program load or run other code."""
    name = base(values[0])
    out: list[str] = []
    table: dict[str, str] = {}
    first, stop = 1, len(values)
    pytest_at = _pytest_start(values)
    if pytest_at is not None:
        table, first = _PYTEST, pytest_at
    elif name == "git":
        table = _GIT
    elif name in ("npm", "pnpm", "yarn", "npx", "bunx", "pnpx"):
        table = dict(_NPM, **({"-c": "runs shell code", "-p": "runs the package it names",
                               "--package": "runs the package it names"} if name in ("npx", "pnpx", "bunx")
                              or values[1:2] in (["exec"], ["x"]) else {}))
    elif name == "bun":
        table = dict(_NODE, **{"--preload": "loads a module first", "--config": "loads another configuration"})
    elif name in ("node", "nodejs"):
        table, stop = _NODE, _first_operand(values)
    elif PYTHON.match(name):
        table, stop = {"-c": "runs code from its argument"}, _first_operand(values)
    elif name in INTERPRETERS:
        table, stop = _INTERP, _first_operand(values)
    else:
        table = _OTHERS.get(name, {})
    for i in range(max(start, first), stop):
        v = values[i]
        if name == "git" and v == "-x" and "rebase" in values[1:i]:
            out.append(f"`{v}` makes git rebase run a command")
            continue
        if name == "make" and re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", v):
            out.append(f"`{v}` overrides a make variable (recipes can run it)")
            continue
        key, attached = _option_key(v, table)
        if key is None:
            if pytest_at is not None and not v.startswith("-") and (v.startswith(("/", "~")) or ".." in v.split("/")):
                out.append(f"`{v}` makes pytest collect tests (and conftest.py files) outside the project")
            continue
        if key == "-p" and pytest_at is not None:
            plugin = attached if attached is not None else (values[i + 1] if i + 1 < len(values) else "")
            if plugin.startswith("no:"):
                continue  # `-p no:cacheprovider` turns a plugin off
        out.append(f"`{v}` {table[key]}")
    return out


def _first_operand(values: list[str]) -> int:
    """An interpreter's own options end at the script (what follows is the script's)."""
    for i, v in enumerate(values[1:], 1):
        if not v.startswith("-") or v == "-":
            return i
        if v == "--":
            return i
    return len(values)


def _option_key(word: str, table: dict[str, str]) -> tuple[str | None, str | None]:
    """The table key `word` spells (`--basetemp=x`, `-pmod`, `-p`), and an attached value."""
    if word in table:
        return word, None
    if word.startswith("-") and "=" in word:  # `--basetemp=x`, and Go's `-exec=x`
        key = word.split("=", 1)[0]
        if key in table:
            return key, word.split("=", 1)[1]
        if word.startswith("--"):
            return None, None
    if word.startswith("-") and not word.startswith("--") and len(word) > 2 and word[:2] in table:
        return word[:2], word[2:]
    return None, None
