"""What judging a command line against the approval rules costs, as ratios in one run.

Baselines measured in the same run: tree-sitter's bare parse of the same line (the floor
any judge built on it pays) and starting `/bin/bash -c true` (what every command the
agent runs costs anyway). Run: `.venv/bin/python bench/bench_judge.py`.
"""

from __future__ import annotations

import statistics
import subprocess
import time

from agent_lsp.agent.cmdline import parse as parse_module
from agent_lsp.agent.cmdline.judge import judge

ALLOW = ["bash(python3 -m pytest*)", "bash(git status*)", "bash(ls*)", "bash(cd*)", "bash(tail*)", "bash(echo*)"]
DENY = ["bash(rm -rf*)", "bash(git push*)"]
LINES = {
    "typical": "cd src && python3 -m pytest -q tests/test_x.py 2>&1 | tail -20",
    "wrapped": "env FOO=1 timeout 60 sh -c 'git status --short && ls -la' | xargs -0 echo",
    "200 kB": " && ".join(f"echo step {i} $(date +%s) >/dev/null" for i in range(5200)),
}


def per_call(fn, seconds: float = 0.5) -> float:
    """Median seconds per call over rounds of about `seconds`."""
    fn()
    n, start = 0, time.perf_counter()
    while time.perf_counter() - start < 0.05:
        fn()
        n += 1
    rounds = []
    for _ in range(5):
        t = time.perf_counter()
        for _ in range(max(1, int(n * seconds / 0.25))):
            fn()
        rounds.append((time.perf_counter() - t) / max(1, int(n * seconds / 0.25)))
    return statistics.median(rounds)


def main() -> None:
    parser = parse_module._parser()
    spawn = per_call(lambda: subprocess.run(["/bin/bash", "-c", "true"], check=True), seconds=0.5)
    print(f"baseline: /bin/bash -c true  {spawn * 1e3:8.3f} ms")
    for name, line in LINES.items():
        data = line.encode()
        bare = per_call(lambda data=data: parser.parse(data))
        full = per_call(lambda line=line: judge("bash", {"command": line}, ALLOW, DENY))
        print(f"{name:8} ({len(line):>6} chars)  judge {full * 1e3:9.3f} ms  = {full / bare:6.1f}x the bare parse, "
              f"{full / spawn:7.3f}x a bash start")


if __name__ == "__main__":
    main()
