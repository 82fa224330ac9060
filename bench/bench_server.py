"""The language server's own numbers: code-action latency idle and under load, start-up time, memory.

    .venv/bin/python bench/bench_server.py [--requests 300] [--starts 5] [--no-python]

What an editor feels, measured through a real `agent-lsp serve` subprocess over stdio:

* code-action latency (p50 / p99 / max over `--requests` sequential requests, 10 ms
  apart) with the server idle and while a task greps the 20,000-file tree from
  make_tree.py over and over (the scripted model keeps asking for `grep` until the block
  is done). Idle and busy blocks alternate in `--rounds` rounds so both see the same
  machine load; the ratio busy/idle is from the same run. With ripgrep, and for
  information with the pure-Python fallback (AGENT_LSP_NO_RG=1, a thread that competes
  for the GIL). Goal: p99 < 20 ms while busy.
* `initialize`: from spawning the process to the initialize response (what an editor
  waits for before anything works), median of `--starts` cold starts, with the share
  spent importing the server's modules measured the same way. Goal < 0.5 s.
* idle RSS of the server process from /proc (VmRSS after initialize; VmHWM after the
  busy run shows the peak). Goal < 80 MB.

The client is a minimal JSON-RPC writer/reader (no pytest-lsp, no cattrs on the client
side) so the numbers are the server's, not the test client's. The model is the scripted
OpenAI-compatible server from tests/. Plain python: prints numbers and ratios measured
in the same run, asserts nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

from make_tree import describe, ensure_tree  # noqa: E402

from tests.scripted_model import ScriptedModel, reply, tool_call  # noqa: E402

LATENCY_GOAL_MS = 20.0
INIT_GOAL_S = 0.5
RSS_GOAL_MB = 80.0
GAP = 0.01  # seconds between code actions, so the busy window spans many greps
GREP_REGEX = "return|TODO"  # common: every grep walks the whole tree and streams many matches back


class RawClient:
    """Just enough of an LSP client: Content-Length framing, requests, and canned answers to the server."""

    def __init__(self, proc: asyncio.subprocess.Process) -> None:
        self.proc = proc
        self.next_id = 0
        self.pending: dict[int, asyncio.Future] = {}
        self.notifications: list[tuple[str, Any]] = []
        self.reader = asyncio.ensure_future(self._read())

    @classmethod
    async def spawn(cls, root: Path, model_url: str, env: dict[str, str] | None = None) -> "RawClient":
        server_env = {**os.environ, "AGENT_BASE_URL": model_url, "AGENT_MODEL": "scripted", **(env or {})}
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "agent_lsp", "serve",
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            env=server_env, cwd=str(HERE.parent),
        )
        return cls(proc)

    def _write(self, message: dict) -> None:
        body = json.dumps(message).encode()
        assert self.proc.stdin is not None
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)

    async def request(self, method: str, params: Any) -> Any:
        self.next_id += 1
        fut = asyncio.get_running_loop().create_future()
        self.pending[self.next_id] = fut
        self._write({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        return await fut

    def notify(self, method: str, params: Any) -> None:
        self._write({"jsonrpc": "2.0", "method": method, "params": params})

    async def _read(self) -> None:
        out = self.proc.stdout
        assert out is not None
        while True:
            length = 0
            while True:
                line = await out.readline()
                if not line:
                    return
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":")[1])
                elif line in (b"\r\n", b"\n"):
                    break
            msg = json.loads(await out.readexactly(length))
            if "method" in msg and "id" in msg:
                self._write({"jsonrpc": "2.0", "id": msg["id"], "result": self._answer(msg["method"], msg.get("params"))})
            elif "method" in msg:
                self.notifications.append((msg["method"], msg.get("params")))
            else:
                fut = self.pending.pop(msg.get("id"), None)
                if fut is not None and not fut.done():
                    if "error" in msg:
                        fut.set_exception(RuntimeError(msg["error"]))
                    else:
                        fut.set_result(msg.get("result"))

    @staticmethod
    def _answer(method: str, params: Any) -> Any:
        if method == "workspace/configuration":
            return [None for _ in (params or {}).get("items", [])]
        if method == "window/showMessageRequest":
            return {"title": "Allow"}
        if method == "workspace/applyEdit":
            return {"applied": True}
        return None  # window/workDoneProgress/create and anything else

    async def initialize(self, root: Path) -> dict:
        caps = {
            "window": {"workDoneProgress": True},
            "workspace": {"configuration": True, "workspaceFolders": True, "applyEdit": True},
            "general": {"positionEncodings": ["utf-16"]},
        }
        result = await self.request("initialize", {
            "processId": os.getpid(), "rootUri": root.as_uri(), "capabilities": caps,
            "workspaceFolders": [{"uri": root.as_uri(), "name": root.name}],
            "initializationOptions": {"maxSteps": 1000, "commandTimeout": 60},
        })
        self.notify("initialized", {})
        return result

    async def close(self) -> None:
        try:
            await asyncio.wait_for(self.request("shutdown", None), 5)
            self.notify("exit", None)
            await asyncio.wait_for(self.proc.wait(), 5)
        except (TimeoutError, RuntimeError, ConnectionError):
            self.proc.kill()
            await self.proc.wait()
        self.reader.cancel()


def proc_status(pid: int) -> dict[str, float]:
    """VmRSS / VmHWM of a process in MB, from /proc."""
    out: dict[str, float] = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in ("VmRSS", "VmHWM"):
            out[key] = int(value.split()[0]) / 1024
    return out


def proc_cpu(pid: int) -> float:
    """CPU seconds (user + system) a process has used so far, from /proc/PID/stat."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def percentile(values: list[float], p: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, max(0, round(p / 100 * len(s) + 0.5) - 1))]


async def code_action_latencies(client: RawClient, uri: str, n: int, gap: float = 0.0) -> list[float]:
    """`n` sequential code actions, `gap` seconds apart (a person moving the cursor, not a flood)."""
    params = {
        "textDocument": {"uri": uri},
        "range": {"start": {"line": 3, "character": 0}, "end": {"line": 3, "character": 0}},
        "context": {"diagnostics": [{
            "range": {"start": {"line": 3, "character": 4}, "end": {"line": 3, "character": 9}},
            "message": "undefined name 'thing'", "source": "pyflakes", "severity": 1,
        }]},
    }
    out = []
    for _ in range(n):
        t0 = time.perf_counter()
        result = await client.request("textDocument/codeAction", params)
        out.append((time.perf_counter() - t0) * 1000)
        assert result and result[0]["title"].startswith("Fix with agent")
        if gap:
            await asyncio.sleep(gap)
    return out


class GrepWhileBusy:
    """Model replies: while `busy`, grep the whole tree (again and again); then a plain answer ends the task."""

    def __init__(self) -> None:
        self.busy = threading.Event()
        self.grep_started = threading.Event()
        self.greps = 0

    def __call__(self, body: dict) -> dict:
        if not self.busy.is_set():
            return reply("done searching")
        self.greps += 1
        self.grep_started.set()
        return tool_call("grep", {"regex": GREP_REGEX, "path": "."})


async def busy_run(root: Path, uri: str, n: int, rounds: int, env: dict[str, str] | None) -> dict:
    """Idle and busy blocks alternate (`rounds` of each), so both see the same machine load."""
    script = GrepWhileBusy()
    model = ScriptedModel([script] * 100_000).start()
    client = await RawClient.spawn(root, model.base_url, env)
    idle: list[float] = []
    busy: list[float] = []
    window = 0.0
    try:
        await client.initialize(root)
        await code_action_latencies(client, uri, 20)  # warm-up
        rss_idle = proc_status(client.proc.pid)
        per_block = max(1, n // rounds)
        for _ in range(rounds):
            idle += await code_action_latencies(client, uri, per_block, GAP)
            script.grep_started.clear()
            script.busy.set()
            task = asyncio.ensure_future(client.request("workspace/executeCommand", {
                "command": "agentLsp.runTask", "arguments": [{"task": "find every return"}]}))
            await asyncio.to_thread(script.grep_started.wait, 30)
            await asyncio.sleep(0.1)  # the first rg is running
            t0 = time.perf_counter()
            busy += await code_action_latencies(client, uri, per_block, GAP)
            window += time.perf_counter() - t0
            script.busy.clear()
            result = await asyncio.wait_for(task, 120)
            assert result["status"] == "done", result
            await client.request("workspace/executeCommand", {"command": "agentLsp.newSession", "arguments": []})
        status = proc_status(client.proc.pid)
    finally:
        await client.close()
        model.stop()
    return {"idle": idle, "busy": busy, "window": window, "greps": script.greps,
            "rss_idle": rss_idle["VmRSS"], "hwm": status["VmHWM"], "violations": list(model.violations)}


def child_cpu(code: str) -> float:
    """CPU seconds of `python -c code`, from getrusage of the finished child.

    The child leaves with os._exit: tearing down the interpreter after importing
    lsprotocol costs a tenth of a second more, which a running server never pays.
    """
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([sys.executable, "-c", code + "\nimport os; os._exit(0)"], check=True, cwd=HERE.parent)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime


async def warm_initialize(root: Path, model_url: str) -> float:
    """The initialize request alone: sent once the process has finished starting (its CPU
    time stopped growing, so it sits waiting on stdin)."""
    client = await RawClient.spawn(root, model_url)
    try:
        last, still = -1.0, 0
        while still < 3:
            await asyncio.sleep(0.05)
            now = proc_cpu(client.proc.pid)
            still = still + 1 if now == last else 0
            last = now
        t0 = time.perf_counter()
        await client.initialize(root)
        return time.perf_counter() - t0
    finally:
        await client.close()


async def cold_starts(root: Path, n: int) -> dict:
    """Cold starts, each followed by the import-only references, so all see the same load."""
    model = ScriptedModel().start()
    out: dict[str, list[float]] = {k: [] for k in ("init", "cpu", "rss", "warm", "imports", "lsprotocol", "python")}
    try:
        for _ in range(n):
            t0 = time.perf_counter()
            client = await RawClient.spawn(root, model.base_url)
            await client.initialize(root)
            out["init"].append(time.perf_counter() - t0)
            out["cpu"].append(proc_cpu(client.proc.pid))
            await asyncio.sleep(0.5)  # settled: the configuration pull and the first log line are done
            out["rss"].append(proc_status(client.proc.pid)["VmRSS"])
            await client.close()
            out["warm"].append(await warm_initialize(root, model.base_url))
            out["imports"].append(child_cpu("import agent_lsp.cli, agent_lsp.server.app, agent_lsp.server.features"))
            out["lsprotocol"].append(child_cpu("import lsprotocol.types"))
            out["python"].append(child_cpu("pass"))
    finally:
        model.stop()
    return out


def row(label: str, ms: list[float], idle_p99: float | None = None) -> str:
    p50, p95, p99 = statistics.median(ms), percentile(ms, 95), percentile(ms, 99)
    ratio = f"{p99 / idle_p99:6.1f}x" if idle_p99 else "      "
    verdict = "ok" if p99 < LATENCY_GOAL_MS else "MISS"
    over = sum(m >= LATENCY_GOAL_MS for m in ms)
    return (f"  {label:<44}{p50:8.2f}{p95:9.2f}{p99:9.2f}{max(ms):9.2f} ms  >={LATENCY_GOAL_MS:g} ms: {over:3}/{len(ms)}"
            f"   p99 vs idle {ratio}   goal p99 < {LATENCY_GOAL_MS:g} ms: {verdict}")


async def main_async(a: argparse.Namespace) -> None:
    root = ensure_tree()
    stats = describe(root)["stats"]
    target = next(p for p in sorted(root.rglob("*.py")) if "build" not in p.parts and "node_modules" not in p.parts)
    uri = target.as_uri()
    print(f"tree: {root} -- {stats['files']} files, {stats['lines']} lines, {stats['bytes'] / 1e6:.0f} MB")
    print(f"python {platform.python_version()}; {os.cpu_count()} cpus; {time.strftime('%Y-%m-%d %H:%M')}; "
          f"load average at start {os.getloadavg()[0]:.1f}; {a.requests} code actions per case\n")

    print(f"{'code-action latency':<46}{'p50':>8}{'p95':>9}{'p99':>9}{'max':>9}")
    runs = [("rg", None)] + ([] if a.no_python else [("python fallback", {"AGENT_LSP_NO_RG": "1"})])
    for name, env in runs:
        r = await busy_run(root, uri, a.requests, a.rounds, env)
        idle_p99 = percentile(r["idle"], 99)
        print(row(f"idle ({name} server)", r["idle"]))
        print(row(f"while grepping the tree ({name})", r["busy"], idle_p99))
        print(f"  {'':<44}{r['greps']} greps of the whole tree during {r['window']:.1f} s of busy blocks "
              f"({a.rounds} idle/busy rounds); model violations {r['violations'] or 'none'}; "
              f"peak RSS {r['hwm']:.0f} MB")
    print()

    s = await cold_starts(root, a.starts)
    init, cpu = statistics.median(s["init"]), statistics.median(s["cpu"])
    imports, bare, python = (statistics.median(s[k]) for k in ("imports", "lsprotocol", "python"))
    rss = statistics.median(s["rss"])
    print(f"initialize (spawn -> response), median of {a.starts}: {init:.3f} s   "
          f"(min {min(s['init']):.3f}, max {max(s['init']):.3f})   goal < {INIT_GOAL_S} s: "
          f"{'ok' if init < INIT_GOAL_S else 'MISS'}")
    print(f"  the initialize request alone, sent to a process that has finished starting: "
          f"{statistics.median(s['warm']) * 1000:.0f} ms (median)")
    print(f"  CPU seconds (less sensitive to other load): the server up to the response {cpu:.3f}; "
          f"python -c pass {python:.3f}; importing the server's modules {imports:.3f} "
          f"({imports / cpu:.0%}), of which lsprotocol.types {bare:.3f} ({bare / cpu:.0%})")
    print(f"idle RSS after initialize, median: {rss:.1f} MB   goal < {RSS_GOAL_MB:g} MB: "
          f"{'ok' if rss < RSS_GOAL_MB else 'MISS'}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--requests", type=int, default=300, help="code actions per case (default 300)")
    ap.add_argument("--rounds", type=int, default=6, help="alternating idle/busy blocks (default 6)")
    ap.add_argument("--starts", type=int, default=5, help="cold starts for the initialize timing (default 5)")
    ap.add_argument("--no-python", action="store_true", help="skip the pure-Python fallback case")
    asyncio.run(main_async(ap.parse_args(argv)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
