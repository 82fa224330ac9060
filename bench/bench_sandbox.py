"""What the sandbox adds to each command: the same command with and without it, paired.

    .venv/bin/python bench/bench_sandbox.py [--runs 40]

For each command (`true`, `git --version`, `python -S -c pass`) every run starts it twice
in a random order, once as the bash tool did before (`/bin/bash -c CMD` in its own
session) and once through `sandbox.wrap()` (bubblewrap: own PID/IPC/network
namespaces, the workspace bound writable, secrets hidden, `.git`/`.agent-lsp`
read-only), and takes the difference of that pair. Prints medians and p90 of both,
the ratio and the milliseconds added (goal <= 15 ms), plus the in-process cost of
`wrap()` itself (building the policy: a few stat calls). Also the same with
sandboxNetwork true, since creating a network namespace is part of the cost.

Plain python: prints numbers; asserts only that both runs print the same output.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from agent_lsp.agent.sandbox import SandboxConfig, detect, wrap  # noqa: E402

COMMANDS = ["true", "git --version", f"{sys.executable} -S -c pass"]


def timed(argv: list[str], env: dict[str, str], cwd: Path) -> tuple[float, str]:
    t = time.perf_counter()
    r = subprocess.run(argv, env=env, cwd=cwd, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                       start_new_session=True)
    return (time.perf_counter() - t) * 1000, r.stdout


def p90(xs: list[float]) -> float:
    return sorted(xs)[int(0.9 * (len(xs) - 1))]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=40)
    args = ap.parse_args()
    got = detect()
    if not got.ok:
        print(f"no sandbox can start here: {got.reason}")
        sys.exit(1)
    print(f"bwrap: {got.bwrap} ({subprocess.run([got.bwrap, '--version'], capture_output=True, text=True).stdout.strip()})")
    print(f"load average: {os.getloadavg()[0]:.2f}; runs per command: {args.runs}, paired, random order\n")
    rnd = random.Random(7)
    with tempfile.TemporaryDirectory(prefix="agent-lsp-bench-sbx-", dir="/var/tmp") as tmp:
        ws = Path(tmp)
        (ws / ".git").mkdir()
        env = dict(os.environ)
        print(f"{'command':<22}{'network':>8}{'plain p50':>11}{'sbx p50':>9}{'sbx p90':>9}{'ratio':>7}"
              f"{'added p50':>11}{'added p90':>11}")
        for network in (False, True):
            config = SandboxConfig(network=network)
            for command in COMMANDS:
                plain_argv = ["/bin/bash", "-c", command]
                wrapped = wrap(command, ws, config, [ws], env)
                for _ in range(3):  # warm the page cache and bwrap's first start
                    timed(wrapped.argv, wrapped.env, ws)
                    timed(plain_argv, env, ws)
                plain: list[float] = []
                boxed: list[float] = []
                for _ in range(args.runs):
                    order = [0, 1]
                    rnd.shuffle(order)
                    pair = {}
                    for which in order:
                        if which:
                            w = wrap(command, ws, config, [ws], env)  # per command, as the tool does
                            pair[1] = timed(w.argv, w.env, ws)
                        else:
                            pair[0] = timed(plain_argv, env, ws)
                    assert pair[0][1] == pair[1][1], (pair[0][1], pair[1][1])
                    plain.append(pair[0][0])
                    boxed.append(pair[1][0])
                added = [b - p for b, p in zip(boxed, plain)]
                mp, mb = statistics.median(plain), statistics.median(boxed)
                shown = command if len(command) < 22 else "python -S -c pass"
                print(f"{shown:<22}{'on' if network else 'off':>8}{mp:>9.1f}ms{mb:>7.1f}ms{p90(boxed):>7.1f}ms"
                      f"{mb / mp:>6.2f}x{statistics.median(added):>9.1f}ms{p90(added):>9.1f}ms")
        minimal = [got.bwrap, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp",
                   "--bind", str(ws), str(ws), "--unshare-net", "--unshare-pid", "--die-with-parent",
                   "--chdir", str(ws), "/bin/bash", "-c", "true"]
        full = wrap("true", ws, SandboxConfig(), [ws], env)
        mins: list[float] = []
        ours: list[float] = []
        for _ in range(args.runs):
            mins.append(timed(minimal, env, ws)[0])
            ours.append(timed(full.argv, full.env, ws)[0])
        print(f"\n`true` in the minimal bwrap line (namespaces + 3 mounts): {statistics.median(mins):.1f} ms; in ours "
              f"({len(full.argv)} args: secrets hidden, .git read-only, caps dropped): {statistics.median(ours):.1f} ms")
        n = 2000
        t = time.perf_counter()
        for _ in range(n):
            wrap("true", ws, SandboxConfig(), [ws], env)
        print(f"\nwrap() itself (policy + argv, in process): {(time.perf_counter() - t) / n * 1e6:.0f} us per command")


if __name__ == "__main__":
    main()
