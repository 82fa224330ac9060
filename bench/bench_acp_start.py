"""What `agent-lsp acp` costs a client before the first prompt: initialize + session/new.

    .venv/bin/python bench/bench_acp_start.py [--starts 10] [--before DIR]

session/new now reads the endpoint's model list (GET /models) for the model picker, so
this measures, from spawning the process to the session/new answer, median of
`--starts`, alternating with the floor every agent on the ACP SDK pays
(`python -c "import acp"`, spawn to exit):

* `listed`: the scripted model on 127.0.0.1 answers GET /models;
* `no list`: the endpoint has no such route (404), so the configured model is the list;
* `dead`: nothing listens at the endpoint (connection refused).

`--before DIR` adds the same start from another source tree (e.g. `git archive` of the
commit before the model picker, unpacked in DIR), alternating in the same run.

The client writes and reads JSON-RPC lines itself (no SDK on the client side), so the
numbers are the agent's. Plain python: prints numbers and ratios measured in the same
run, asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.scripted_model import ScriptedModel  # noqa: E402


def floor_once() -> float:
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-c", "import acp"], check=True)
    return time.perf_counter() - t0


def _send(proc: subprocess.Popen, msg: dict) -> None:
    assert proc.stdin is not None
    proc.stdin.write((json.dumps(msg) + "\n").encode())
    proc.stdin.flush()


def _answer(proc: subprocess.Popen, request_id: int) -> dict:
    assert proc.stdout is not None
    while True:
        line = proc.stdout.readline()
        if not line:
            raise RuntimeError("agent-lsp acp exited before answering")
        msg = json.loads(line)
        if msg.get("id") == request_id and "method" not in msg:
            return msg


def start_once(base_url: str, workspace: str, env: dict[str, str], tree: str | None = None) -> tuple[float, int]:
    """Seconds from spawn to the session/new answer, and how many models it offered."""
    env = {**env, "AGENT_BASE_URL": base_url, **({"PYTHONPATH": tree} if tree else {})}
    t0 = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "agent_lsp", "acp"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env, cwd=workspace)
    try:
        _send(proc, {"jsonrpc": "2.0", "id": 1, "method": "initialize",
                     "params": {"protocolVersion": 1, "clientCapabilities": {}}})
        _answer(proc, 1)
        _send(proc, {"jsonrpc": "2.0", "id": 2, "method": "session/new",
                     "params": {"cwd": workspace, "mcpServers": []}})
        answer = _answer(proc, 2)
        took = time.perf_counter() - t0
    finally:
        proc.kill()
        proc.wait()
    options = (answer["result"].get("configOptions") or [{"options": []}])[0]["options"]
    return took, len(options)


def dead_url() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"  # closed again: connection refused


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--starts", type=int, default=10)
    ap.add_argument("--before", help="another source tree to start the same way (baseline)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("AGENT_", "OPENAI_", "XDG_"))}
        env.update({"XDG_STATE_HOME": f"{tmp}/state", "XDG_CONFIG_HOME": f"{tmp}/config", "AGENT_MODEL": "bench"})
        ws = Path(tmp) / "ws"
        ws.mkdir()
        listed = ScriptedModel(models=["bench", "other-a", "other-b"]).start()
        unlisted = ScriptedModel(models=None).start()
        cases = {"listed": listed.base_url, "no list": unlisted.base_url, "dead": dead_url()}
        if args.before:
            cases["before"] = listed.base_url
        floor: list[float] = []
        times: dict[str, list[float]] = {name: [] for name in cases}
        offered: dict[str, int] = {}
        for _ in range(args.starts):
            floor.append(floor_once())
            for name, url in cases.items():
                took, n = start_once(url, str(ws), env, args.before if name == "before" else None)
                times[name].append(took)
                offered[name] = n
        listed.stop()
        unlisted.stop()
    f = statistics.median(floor)
    load = os.getloadavg()[0]
    print(f"floor `python -c 'import acp'`, spawn to exit: median {f * 1000:.0f} ms ({args.starts} runs, load {load:.1f})")
    for name, ts in times.items():
        m = statistics.median(ts)
        print(f"initialize + session/new, {name:8}: median {m * 1000:.0f} ms = {m / f:.2f}x the floor "
              f"(best {min(ts) * 1000:.0f} ms; {offered[name]} model(s) offered)")


if __name__ == "__main__":
    main()
