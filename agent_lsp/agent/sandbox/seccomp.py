"""A seccomp filter that keeps sandboxed commands from opening Unix sockets.

Why: the binds decide what a command can write and the network namespace what it can
reach by address, but a Unix socket is reached by its path, and connecting to a socket
under a read-only bind still works. Behind such paths sit the person's session bus
(`systemd-run --user` runs anything outside the sandbox), a Docker or Podman socket
(root on the host), ssh and gpg agents, an editor's IPC. reach.py hides the known
ones; this filter covers the rest, wherever they are, including ones made later.

So inside the sandbox `socket(AF_UNIX, ...)` fails with EPERM. `socketpair()` still
works (both ends belong to the command), so pipes between its own processes, asyncio
and Node's child IPC are unaffected. io_uring could open and connect sockets without
those system calls, so `io_uring_setup` answers ENOSYS (programs fall back to plain
calls). A system call of another ABI than the agent's (x32, a 32-bit `int 0x80`) ends
the process: the filter only knows the native numbers.

It is classic BPF, written to a file once per process; bubblewrap loads it with
`--seccomp FD` after setting no_new_privs, right before it runs the command. With
`sandboxNetwork: true` no filter is used: the person let the command talk to other
processes.
"""

from __future__ import annotations

import os
import platform
import struct
import subprocess
from functools import lru_cache
from pathlib import Path

# <linux/bpf_common.h>, <linux/seccomp.h>
_LD_W_ABS, _JEQ_K, _JGE_K, _RET_K = 0x20, 0x15, 0x35, 0x06
_RET_ALLOW, _RET_ERRNO, _RET_KILL_PROCESS = 0x7FFF0000, 0x00050000, 0x80000000
_EPERM, _ENOSYS = 1, 38
_AF_UNIX = 1
_X32_BIT = 0x40000000
_NR, _ARCH, _ARG0 = 0, 4, 16  # offsets in struct seccomp_data (args[0]'s low word, little-endian)

# machine -> (AUDIT_ARCH_*, socket, io_uring_setup, has an x32 ABI beside it)
_ARCHES = {
    "x86_64": (0xC000003E, 41, 425, True),
    "aarch64": (0xC00000B7, 198, 425, False),
}

FD = 3  # the descriptor bubblewrap reads the program from (opened by the launcher line)


def _ins(code: int, k: int, jt: int = 0, jf: int = 0) -> bytes:
    return struct.pack("<HBBI", code, jt, jf, k)


def program(machine: str) -> bytes | None:
    """The filter for this machine's ABI, or None where we do not know its numbers."""
    if machine not in _ARCHES:
        return None
    arch, nr_socket, nr_uring, x32 = _ARCHES[machine]
    out = [_ins(_LD_W_ABS, _ARCH), _ins(_JEQ_K, arch, 1, 0), _ins(_RET_K, _RET_KILL_PROCESS), _ins(_LD_W_ABS, _NR)]
    if x32:
        out += [_ins(_JGE_K, _X32_BIT, 0, 1), _ins(_RET_K, _RET_KILL_PROCESS)]
    out += [
        _ins(_JEQ_K, nr_uring, 0, 1), _ins(_RET_K, _RET_ERRNO | _ENOSYS),
        _ins(_JEQ_K, nr_socket, 0, 3), _ins(_LD_W_ABS, _ARG0),
        _ins(_JEQ_K, _AF_UNIX, 0, 1), _ins(_RET_K, _RET_ERRNO | _EPERM),
        _ins(_RET_K, _RET_ALLOW),
    ]
    return b"".join(out)


def launcher(filter_file: Path, argv: list[str]) -> list[str]:
    """`argv` (bwrap ... --seccomp FD ...) started with the filter open on FD.

    A shell line rather than an inherited descriptor, because an editor's terminal
    (ACP `terminal/create`) starts this argv in its own process: the file must be opened
    there. `exec` keeps the pid, so killing the process (group) still ends bubblewrap.
    """
    return ["/bin/sh", "-c", f'exec "$@" {FD}<"$0"', str(filter_file), *argv]


@lru_cache(maxsize=4)
def filter_file(folder: str) -> Path | None:
    """The program written (read-only) into the agent's private sandbox folder, or None."""
    prog = program(platform.machine())
    if prog is None:
        return None
    path = Path(folder) / "no-unix-sockets.bpf"
    try:
        if path.read_bytes() == prog:
            return path
    except OSError:
        pass
    tmp = path.with_suffix(f".{os.getpid()}.tmp")
    try:  # written whole, then renamed: a command never reads half a program
        tmp.write_bytes(prog)
        tmp.chmod(0o444)
        os.replace(tmp, path)
    except OSError:
        return None
    return path


@lru_cache(maxsize=8)
def check(bwrap: str, folder: str) -> tuple[Path | None, str]:
    """(the filter, "") when bubblewrap loads it here, else (None, why not): probed once by
    really starting `true` under it, since an old kernel or bwrap may refuse it."""
    path = filter_file(folder)
    if path is None:
        return None, f"no seccomp filter for this machine ({platform.machine()})"
    argv = launcher(path, [bwrap, "--die-with-parent", "--unshare-pid", "--cap-drop", "ALL", "--seccomp", str(FD),
                           "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--", "true"])
    try:
        r = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=10,
                           env={"PATH": os.environ.get("PATH", "/usr/bin:/bin")})
    except (OSError, subprocess.SubprocessError) as e:
        return None, f"bubblewrap did not start with it: {e}"
    if r.returncode != 0:
        first = (r.stderr.strip().splitlines() or [f"exit {r.returncode}"])[0]
        return None, f"bubblewrap cannot load it here: {first[:200]}"
    return path, ""
