"""The one entry the command runners call: a shell command in, the argv and env to run out.

Both runners use it, the bash tool (which spawns the argv itself, in its own process
group, so a timeout or cancel still kills the whole tree: bubblewrap sits in that group
and `--die-with-parent` ends the sandbox with it) and the ACP path (which hands the same
argv to the editor's `terminal/create`). When the sandbox is off, or none can start,
the argv is the plain `bash -c` of before and `sandboxed` says so; the environment is
scrubbed of credentials either way.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Mapping, Sequence

from . import seccomp
from .bwrap import bwrap_argv
from .choices import SandboxConfig
from .detect import Availability, detect, placeholder
from .envscrub import scrub_env
from .explain import blocked_note, describe, summary
from .explain import start_notes as explain_start
from .reach import Policy, build_policy

SHELL = "/bin/bash"
ENV = "/usr/bin/env"
OFF = Availability(None, 'sandbox is "off"')


@dataclass(frozen=True)
class Wrapped:
    """What to run, and what to tell about it."""

    argv: list[str]
    env: dict[str, str]
    sandboxed: bool
    policy: Policy
    available: Availability
    dropped: tuple[str, ...] = field(default=())  # names of the variables withheld (never their values)
    inner: tuple[str, ...] = ()  # the command itself (`bash -c ...`), as it runs inside
    cwd: str = ""

    @property
    def summary(self) -> str:
        return summary(self.policy, self.available)

    def describe(self) -> dict:
        return describe(self.policy, self.available)

    def terminal(self) -> tuple[str, list[str]]:
        """(command, args) for an editor's terminal: the environment is carried in the argv.

        The editor merges what `terminal/create` gives into its own environment, which may
        hold tokens; so the command itself sets exactly ours (`bwrap --clearenv --setenv`,
        or `env -i` when not sandboxed).
        """
        if self.sandboxed:
            argv = bwrap_argv(self.available.bwrap or "", self.policy, list(self.inner), Path(self.cwd),
                              placeholder(), setenv=self.env, sock_filter=sock_filter(self.policy, self.available)[0])
            return argv[0], argv[1:]
        return ENV, ["-i", *(f"{k}={v}" for k, v in self.env.items()), *self.argv]

    def note(self, output: str) -> str | None:
        """The one line to add to the tool result when the sandbox stopped the command."""
        return blocked_note(output, self.policy, self.available) if self.sandboxed else None


def availability(config: SandboxConfig) -> Availability:
    return OFF if config.mode == "off" else detect()


def sock_filter(policy: Policy, available: Availability) -> tuple[Path | None, str]:
    """The seccomp program that refuses Unix sockets, unless the network is allowed; with
    the reason when this machine cannot load one (said at a task's start)."""
    if policy.network or not available.ok:
        return None, ""
    return seccomp.check(available.bwrap or "", str(placeholder().parent))


def start_notes(config: SandboxConfig, roots: Sequence[Path | str]) -> list[str]:
    """The lines for a task's start: no sandbox can start here (and how to get one), skipped paths."""
    if config.mode == "off":
        return []
    policy, available = build_policy(config, roots), availability(config)
    lines = explain_start(policy, available)
    if (why := sock_filter(policy, available)[1]):
        lines.append(f"note: commands can still reach Unix sockets outside the known ones the sandbox hides ({why})")
    return lines


def about(config: SandboxConfig) -> dict:
    """How a command will run under `config`, as the approval request's `sandbox` data."""
    return describe(config, availability(config))


def wrap(command: str, cwd: Path | str, config: SandboxConfig, roots: Sequence[Path | str],
         env: Mapping[str, str], *, secret_values: Iterable[str] = ()) -> Wrapped:
    """`bash -c command` in `cwd`, inside the sandbox `config` asks for when one can start.

    `env` is the environment the command would get unsandboxed (it also names HOME and
    the XDG folders whose secrets are hidden); `secret_values` never pass under any name.
    """
    policy = build_policy(config, roots, env)
    available = availability(config)
    clean, dropped = scrub_env(env, allow=config.env, secret_values=secret_values)
    plain = [SHELL, "-c", command]
    if not available.ok:
        return Wrapped(plain, clean, False, policy, available, tuple(dropped), tuple(plain), str(cwd))
    clean["TMPDIR"] = "/tmp"  # the only temp folder a command can write (private to it)
    argv = bwrap_argv(available.bwrap or "", policy, plain, Path(cwd), placeholder(),
                      sock_filter=sock_filter(policy, available)[0])
    return Wrapped(argv, clean, True, policy, available, tuple(dropped), tuple(plain), str(cwd))
