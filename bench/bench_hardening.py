"""What the trust hardening costs, as ratios against the unhardened way in the same run.

- an undo snapshot (temporary index, `git add --all`, `git write-tree`) of a 2,000-file
  git work tree: plain git calls vs agent/safegit.py's (hardening flags, the repository's
  filter drivers emptied, one extra `git config` call);
- one atomic write of a 4 kB file: a plain mkstemp + fsync + rename vs fileio's
  (exclusive temp named and journalled for the sweep after a kill, fsync of the folder).

Run from the repository root: `.venv/bin/python bench/bench_hardening.py [--runs 30]`.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def make_repo(top: Path, files: int) -> None:
    for i in range(files):
        d = top / f"pkg{i % 40}"
        d.mkdir(exist_ok=True)
        (d / f"m{i}.py").write_text(f"X = {i}\n" * 20)
    env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1"}
    for args in (["init", "-q"], ["add", "-A"], ["-c", "user.name=b", "-c", "user.email=b@b", "commit", "-qm", "x"]):
        subprocess.run(["git", *args], cwd=top, env=env, check=True, capture_output=True)


def plain_snapshot(top: Path) -> str:
    with tempfile.TemporaryDirectory() as tmp:
        index = Path(tmp) / "index"
        shutil.copyfile(top / ".git" / "index", index)
        env = {**os.environ, "GIT_INDEX_FILE": str(index)}
        subprocess.run(["git", "add", "--all", "--", "."], cwd=top, env=env, check=True, capture_output=True)
        return subprocess.run(["git", "write-tree"], cwd=top, env=env, check=True, capture_output=True).stdout.decode()


def timed(fn, runs: int) -> float:
    fn()  # warm
    samples = []
    for _ in range(runs):
        t = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - t)
    return statistics.median(samples)


def plain_write(path: Path, data: bytes) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent)
    with os.fdopen(fd, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--files", type=int, default=2000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["XDG_STATE_HOME"] = str(Path(tmp) / "state")
        from agent_lsp.agent.checkpoints import GitTree
        from agent_lsp.agent.fileio import write_bytes_atomic

        top = Path(tmp) / "repo"
        top.mkdir()
        make_repo(top, args.files)
        (top / "pkg0" / "m0.py").write_text("changed\n")
        tree = GitTree(top)
        plain = timed(lambda: plain_snapshot(top), args.runs)
        ours = timed(tree.snapshot, args.runs)
        target = top / "write.txt"
        data = b"x" * 4096
        plain_w = timed(lambda: plain_write(target, data), args.runs * 10)
        ours_w = timed(lambda: write_bytes_atomic(target, data), args.runs * 10)
    print(f"{'what':<44} {'plain ms':>9} {'ours ms':>9} {'ratio':>7}")
    print(f"{'undo snapshot, ' + str(args.files) + ' files':<44} {plain * 1e3:9.1f} {ours * 1e3:9.1f} {ours / plain:7.2f}")
    print(f"{'atomic write, 4 kB':<44} {plain_w * 1e3:9.2f} {ours_w * 1e3:9.2f} {ours_w / plain_w:7.2f}")


if __name__ == "__main__":
    main()
