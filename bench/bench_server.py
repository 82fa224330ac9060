"""The language server's own numbers: code-action latency idle and under load, cancel, big rewrites, start-up, memory.

    .venv/bin/python bench/bench_server.py [--cases load,rewrite,start] [--requests 300]
        [--rounds 6] [--cancels 3] [--starts 10] [--nice-off] [--python]

What an editor feels, measured through a real `agent-lsp serve` subprocess over stdio:

* `load`: code-action latency (p50 / p95 / p99 / max over `--requests` sequential
  requests, 10 ms apart) on an open 5,000-line document, with the server idle and while
  a task runs grep and list_files in parallel (one model reply, two tool calls) over the
  20,000-file tree from make_tree.py, round after round. Idle and busy blocks alternate in
  `--rounds` rounds so both see the same machine load. Goal: p99 < 25 ms while busy.
  Then `--cancels` tasks are cancelled mid-search by `$/cancelRequest` and by
  `agentLsp.cancel`: the time until the task's progress ends. Goal < 1 s.
  `--nice-off` adds the same case with the tool processes not niced (AGENT_LSP_TOOL_NICE=0),
  `--python` the pure-Python search fallback.
* `rewrite`: a task's write_file over an open 100,000-line file (50 scattered changes,
  then a full rewrite); code actions on another document during the whole task against an
  idle block before it. Goal: p99 < 50 ms.
* `start`: `initialize` from spawning the process to its response, median of `--starts`,
  alternating with the floor every pygls server pays, `python -c "import pygls.lsp.server"`
  from spawn to exit (and, stricter, the same leaving with os._exit). Goal <= 1.15x the
  floor. Idle RSS after initialize, goal < 60 MB.

The client is a minimal JSON-RPC writer/reader (no pytest-lsp, no cattrs on the client
side) so the numbers are the server's, not the test client's; the scripted OpenAI-compatible
model from tests/ runs in a process of its own. Plain python: prints numbers and ratios
measured in the same run, asserts nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import platform
import re
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

from tests.scripted_model import ScriptedModel, call, reply, tool_call, tool_calls  # noqa: E402

LATENCY_GOAL_MS = 25.0  # p99 of code actions while a task searches
REWRITE_GOAL_MS = 50.0  # p99 of code actions while a big write_file becomes edits
CANCEL_GOAL_S = 1.0
START_GOAL = 1.15  # initialize, spawn -> response, over `import pygls.lsp.server`
RSS_GOAL_MB = 60.0
BIG_MESSAGE = 1 << 20  # bytes; larger messages from the server are only peeked at (RawClient._peek)
GAP = 0.01  # seconds between code actions, so the busy window spans many greps
GREP_REGEX = "return|TODO"  # common: every grep walks the whole tree and streams many matches back


class RawClient:
    """Just enough of an LSP client: Content-Length framing, requests, and canned answers to the server."""

    def __init__(self, proc: asyncio.subprocess.Process) -> None:
        self.proc = proc
        self.next_id = 0
        self.pending: dict[int, asyncio.Future] = {}
        self.notifications: list[tuple[str, Any]] = []
        self.progress_ended = asyncio.Event()  # set by each `$/progress` end
        self.on_apply_edit: Any = None  # called with the applyEdit params (e.g. to send the didChange)
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
        return await self.start_request(method, params)[1]

    def start_request(self, method: str, params: Any) -> tuple[int, asyncio.Future]:
        """Send a request now; its id (for `$/cancelRequest`) and the future of its answer."""
        self.next_id += 1
        fut = asyncio.get_running_loop().create_future()
        self.pending[self.next_id] = fut
        self._write({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        return self.next_id, fut

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
            body = await out.readexactly(length)
            msg = self._peek(body) if length > BIG_MESSAGE else json.loads(body)
            if "method" in msg and "id" in msg:
                self._write({"jsonrpc": "2.0", "id": msg["id"], "result": self._answer(msg["method"], msg.get("params"))})
                if msg["method"] == "workspace/applyEdit" and self.on_apply_edit is not None:
                    self.on_apply_edit(msg.get("params"))
            elif "method" in msg:
                self.notifications.append((msg["method"], msg.get("params")))
                if msg["method"] == "$/progress" and (msg.get("params") or {}).get("value", {}).get("kind") == "end":
                    self.progress_ended.set()
            else:
                fut = self.pending.pop(msg.get("id"), None)
                if fut is not None and not fut.done():
                    if "error" in msg:
                        fut.set_exception(RuntimeError(msg["error"]))
                    else:
                        fut.set_result(msg.get("result"))

    @staticmethod
    def _peek(body: bytes) -> dict:
        """A message of megabytes (the applyEdit of a big rewrite): its id and method only,
        from its two ends, so that this client's json.loads does not count as server latency."""
        ends = body[:65536] + b" " + body[-65536:]
        msg: dict[str, Any] = {}
        if (m := re.search(rb'"method":\s*"([^"]+)"', ends)) is not None:
            msg["method"] = m[1].decode()
        if (m := re.search(rb'"id":\s*(\d+|"[^"]*")', ends)) is not None:
            msg["id"] = json.loads(m[1])
        return msg

    def write_raw(self, body: bytes) -> None:
        """Send a message already serialised (so the big didChange costs nothing while timing)."""
        assert self.proc.stdin is not None
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)

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
            "workspace": {"configuration": True, "workspaceFolders": True, "applyEdit": True,
                          # a client with an edit preview (else edits wait in the inline review)
                          "workspaceEdit": {"documentChanges": True, "changeAnnotationSupport": {}}},
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


class ModelProcess:
    """The scripted model in a child process of its own (fork): parsing and validating a
    request of megabytes would otherwise take the GIL from this client and show up as
    server latency."""

    def __init__(self, steps: list) -> None:
        ctx = multiprocessing.get_context("fork")
        self._urls = ctx.Queue()
        self._stop = ctx.Event()
        self._proc = ctx.Process(target=self._serve, args=(steps,), daemon=True)

    def _serve(self, steps: list) -> None:
        model = ScriptedModel(steps).start()
        self._urls.put((model.base_url, None))
        self._stop.wait()
        self._urls.put((None, list(model.violations)))
        model.stop()

    def start(self) -> "ModelProcess":
        self._proc.start()
        self.base_url, _ = self._urls.get(timeout=30)
        return self

    def stop(self) -> list:
        """Stop it; the protocol violations it saw."""
        self._stop.set()
        try:
            _, violations = self._urls.get(timeout=10)
        except Exception:
            violations = ["(the model process did not answer)"]
        self._proc.join(5)
        return violations


class SearchWhileBusy:
    """Model replies: while `busy`, grep and list_files over the whole tree in one reply (they
    run in parallel), round after round; then a plain answer ends the task."""

    def __init__(self) -> None:  # shared with the model's process
        ctx = multiprocessing.get_context("fork")
        self.busy = ctx.Event()
        self.started = ctx.Event()
        self.count = ctx.Value("i", 0)

    @property
    def rounds(self) -> int:
        return self.count.value

    def __call__(self, body: dict) -> dict:
        if not self.busy.is_set():
            return reply("done searching")
        with self.count.get_lock():
            self.count.value += 1
        self.started.set()
        return tool_calls(call("grep", {"regex": GREP_REGEX, "path": "."}), call("list_files", {"path": ".", "pattern": "*"}))


def open_document(client: RawClient, path: Path, lines: int) -> str:
    """didOpen a `lines`-line Python document (not on disk: the searches don't see it); its uri."""
    text = "".join(f"def f{i}(x):\n    return x + {i}  # TODO {i}\n" for i in range(lines // 2))
    uri = path.as_uri()
    client.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "python", "version": 1, "text": text}})
    return uri


async def start_task(client: RawClient, task: str) -> tuple[int, asyncio.Future]:
    client.progress_ended.clear()
    return client.start_request("workspace/executeCommand", {"command": "agentLsp.runTask", "arguments": [{"task": task}]})


async def load_run(root: Path, n: int, rounds: int, cancels: int, env: dict[str, str] | None) -> dict:
    """Idle and busy blocks alternate (`rounds` of each) so both see the same machine load;
    then `cancels` tasks cancelled by each route while they search."""
    script = SearchWhileBusy()
    model = ModelProcess([script] * 100_000).start()
    client = await RawClient.spawn(root, model.base_url, env)
    idle: list[float] = []
    busy: list[float] = []
    cancel_s: dict[str, list[float]] = {"$/cancelRequest": [], "agentLsp.cancel": []}
    window = 0.0
    try:
        await client.initialize(root)
        uri = open_document(client, root / "open_5000_lines.py", 5000)
        await code_action_latencies(client, uri, 20)  # warm-up
        rss_idle = proc_status(client.proc.pid)
        per_block = max(1, n // rounds)
        for _ in range(rounds):
            idle += await code_action_latencies(client, uri, per_block, GAP)
            script.started.clear()
            script.busy.set()
            _id, task = await start_task(client, "find every return and list the files")
            await asyncio.to_thread(script.started.wait, 30)
            await asyncio.sleep(0.1)  # the first searches are running
            t0 = time.perf_counter()
            busy += await code_action_latencies(client, uri, per_block, GAP)
            window += time.perf_counter() - t0
            script.busy.clear()
            result = await asyncio.wait_for(task, 120)
            assert result["status"] == "done", result
            await client.request("workspace/executeCommand", {"command": "agentLsp.newSession", "arguments": []})
        for route in [r for _ in range(cancels) for r in cancel_s]:
            script.started.clear()
            script.busy.set()
            msg_id, task = await start_task(client, "search until cancelled")
            await asyncio.to_thread(script.started.wait, 30)
            await asyncio.sleep(0.3)  # in the middle of a round of searches
            t0 = time.perf_counter()
            if route == "$/cancelRequest":
                client.notify("$/cancelRequest", {"id": msg_id})
            else:
                await client.request("workspace/executeCommand", {"command": "agentLsp.cancel", "arguments": []})
            await asyncio.wait_for(client.progress_ended.wait(), 30)  # the task really ended
            cancel_s[route].append(time.perf_counter() - t0)
            script.busy.clear()
            try:
                await asyncio.wait_for(task, 30)
            except RuntimeError:  # $/cancelRequest: pygls answers RequestCancelled
                pass
            await client.request("workspace/executeCommand", {"command": "agentLsp.newSession", "arguments": []})
        status = proc_status(client.proc.pid)
    finally:
        await client.close()
        violations = model.stop()
    return {"idle": idle, "busy": busy, "window": window, "rounds": script.rounds, "cancel": cancel_s,
            "rss_idle": rss_idle["VmRSS"], "hwm": status["VmHWM"], "violations": violations}


async def rewrite_run(lines: int, n: int) -> dict:
    """A task rewrites a `lines`-line open file (50 scattered changes, then a full rewrite)
    with write_file while code actions are timed; idle blocks before each, same run."""
    sys.path.insert(0, str(HERE))
    from bench_diff import make_lines, scattered

    import random
    import tempfile

    import tests.scripted_model as scripted

    # A model streams ~4 characters a token, but none writes 3 MB in one call: the content
    # comes in 4 KiB pieces here, so the time is the server's diff, not 750,000 SSE events.
    scripted._PIECE_SIZES = (4096,)
    rnd = random.Random(7)
    original = make_lines(rnd, lines)
    afters = {"50 scattered changes": "".join(scattered(rnd, original, 50)), "full rewrite": "".join(make_lines(rnd, lines))}
    out: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="bench-rewrite-") as tmp:
        root = Path(tmp)
        big = root / "big.py"
        for name, after in afters.items():
            big.write_text("".join(original))
            steps = [tool_call("write_file", {"path": "big.py", "content": after}), reply("rewritten")]
            model = ModelProcess(steps).start()
            client = await RawClient.spawn(root, model.base_url)
            try:
                await client.initialize(root)
                big_uri = big.as_uri()
                client.notify("textDocument/didOpen", {"textDocument": {
                    "uri": big_uri, "languageId": "python", "version": 1, "text": "".join(original)}})
                uri = open_document(client, root / "small.py", 200)
                edit_sent: list[float] = []
                change = json.dumps({"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {
                    "textDocument": {"uri": big_uri, "version": 2}, "contentChanges": [{"text": after}]}}).encode()

                def applied(params: Any, change: bytes = change) -> None:  # the editor applies it: didChange
                    edit_sent.append(time.perf_counter())
                    client.write_raw(change)

                client.on_apply_edit = applied
                await code_action_latencies(client, uri, 20)  # warm-up
                idle = await code_action_latencies(client, uri, n, GAP)
                t0 = time.perf_counter()
                _id, task = await start_task(client, "rewrite big.py")
                busy: list[float] = []
                while not task.done():
                    busy += await code_action_latencies(client, uri, 1, GAP)
                result = await task
                took = time.perf_counter() - t0
                assert result["status"] == "done", result
                assert big.read_text() == after, "the file does not hold the rewrite"
                out[name] = {"idle": idle, "busy": busy, "task_s": took,
                             "to_edit_s": (edit_sent[0] - t0) if edit_sent else float("nan")}
            finally:
                await client.close()
                model.stop()
    return out


def spawn_to_exit(code: str) -> float:
    """Seconds from spawning `python -c code` to its exit."""
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], check=True, cwd=HERE.parent)
    return time.perf_counter() - t0


async def cold_starts(root: Path, n: int) -> dict:
    """`n` rounds, alternating: the server from spawn to its initialize response, and the
    floor any pygls server pays, `python -c "import pygls.lsp.server"` from spawn to exit
    (and, stricter, the same leaving with os._exit: no interpreter teardown)."""
    model = ScriptedModel().start()
    out: dict[str, list[float]] = {k: [] for k in ("init", "floor", "floor_exit", "rss", "modules")}
    try:
        for _ in range(n):
            out["floor"].append(spawn_to_exit("import pygls.lsp.server"))
            t0 = time.perf_counter()
            client = await RawClient.spawn(root, model.base_url)
            await client.initialize(root)
            out["init"].append(time.perf_counter() - t0)
            await asyncio.sleep(0.5)  # settled: the configuration pull and the first log line are done
            out["rss"].append(proc_status(client.proc.pid)["VmRSS"])
            await client.close()
            out["floor_exit"].append(spawn_to_exit("import pygls.lsp.server, os; os._exit(0)"))
        engine = subprocess.run(
            [sys.executable, "-c", "import sys, agent_lsp.cli, agent_lsp.server.app, agent_lsp.server.features;"
             "print(sorted(m for m in ('httpx', 'agent_lsp.agent.loop', 'agent_lsp.agent.tools', 'agent_lsp.agent.model.llm')"
             " if m in sys.modules))"], capture_output=True, text=True, cwd=HERE.parent)
        out["engine_at_start"] = engine.stdout.strip()
    finally:
        model.stop()
    return out


def row(label: str, ms: list[float], goal: float, idle_p99: float | None = None) -> str:
    p50, p95, p99 = statistics.median(ms), percentile(ms, 95), percentile(ms, 99)
    ratio = f"{p99 / idle_p99:6.1f}x" if idle_p99 else "      "
    verdict = "ok" if p99 < goal else "MISS"
    over = sum(m >= goal for m in ms)
    return (f"  {label:<44}{p50:8.2f}{p95:9.2f}{p99:9.2f}{max(ms):9.2f} ms  >={goal:g} ms: {over:3}/{len(ms)}"
            f"   p99 vs idle {ratio}   goal p99 < {goal:g} ms: {verdict}")


async def main_async(a: argparse.Namespace) -> None:
    root = ensure_tree()
    stats = describe(root)["stats"]
    print(f"tree: {root} -- {stats['files']} files, {stats['lines']} lines, {stats['bytes'] / 1e6:.0f} MB")
    print(f"python {platform.python_version()}; {os.cpu_count()} cpus; {time.strftime('%Y-%m-%d %H:%M')}; "
          f"load average at start {os.getloadavg()[0]:.1f}\n")
    cases = set(a.cases.split(","))

    if "load" in cases:
        print(f"{'code-action latency, 5,000-line document open':<46}{'p50':>8}{'p95':>9}{'p99':>9}{'max':>9}")
        runs = [("rg", None)] + ([("rg, tools not niced", {"AGENT_LSP_TOOL_NICE": "0"})] if a.nice_off else []) \
            + ([("python fallback", {"AGENT_LSP_NO_RG": "1"})] if a.python else [])
        for name, env in runs:
            r = await load_run(root, a.requests, a.rounds, a.cancels, env)
            idle_p99 = percentile(r["idle"], 99)
            print(row(f"idle ({name} server)", r["idle"], LATENCY_GOAL_MS))
            print(row(f"grep + list_files in parallel ({name})", r["busy"], LATENCY_GOAL_MS, idle_p99))
            print(f"  {'':<44}{r['rounds']} rounds of grep + list_files over the tree in {r['window']:.1f} s of busy "
                  f"blocks ({a.rounds} idle/busy rounds); model violations {r['violations'] or 'none'}; "
                  f"idle RSS {r['rss_idle']:.0f} MB, peak {r['hwm']:.0f} MB")
            for route, times in r["cancel"].items():
                if times:
                    print(f"  cancel by {route:<34} task ended after max {max(times):.3f} s, median "
                          f"{statistics.median(times):.3f} s ({len(times)} tries)   goal < {CANCEL_GOAL_S:g} s: "
                          f"{'ok' if max(times) < CANCEL_GOAL_S else 'MISS'}")
        print()

    if "rewrite" in cases:
        print(f"{f'code-action latency, write_file of {a.rewrite_lines:,} lines':<46}{'p50':>8}{'p95':>9}{'p99':>9}{'max':>9}")
        for name, r in (await rewrite_run(a.rewrite_lines, a.requests // 2)).items():
            print(row(f"idle (before: {name})", r["idle"], REWRITE_GOAL_MS))
            print(row(f"during the task: {name}", r["busy"], REWRITE_GOAL_MS, percentile(r["idle"], 99)))
            print(f"  {'':<44}task {r['task_s']:.2f} s; runTask sent -> applyEdit received {r['to_edit_s']:.2f} s")
        print()

    if "start" in cases:
        s = await cold_starts(root, a.starts)
        init, floor, floor_exit = (statistics.median(s[k]) for k in ("init", "floor", "floor_exit"))
        rss = statistics.median(s["rss"])
        print(f"initialize, spawn -> response, median of {a.starts}: {init * 1000:.0f} ms "
              f"(min {min(s['init']) * 1000:.0f}, max {max(s['init']) * 1000:.0f})")
        print(f"  floor: python -c 'import pygls.lsp.server', spawn -> exit, median: {floor * 1000:.0f} ms   "
              f"ratio {init / floor:.2f}x   goal <= {START_GOAL}x: {'ok' if init / floor <= START_GOAL else 'MISS'}")
        print(f"  stricter floor, the same leaving with os._exit (no teardown): {floor_exit * 1000:.0f} ms   "
              f"ratio {init / floor_exit:.2f}x")
        print(f"  engine modules imported by the server's start: {s['engine_at_start']}")
        print(f"idle RSS after initialize, median: {rss:.1f} MB   goal < {RSS_GOAL_MB:g} MB: "
              f"{'ok' if rss < RSS_GOAL_MB else 'MISS'}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--requests", type=int, default=300, help="code actions per case (default 300)")
    ap.add_argument("--rounds", type=int, default=6, help="alternating idle/busy blocks (default 6)")
    ap.add_argument("--starts", type=int, default=10, help="cold starts for the initialize timing (default 10)")
    ap.add_argument("--cancels", type=int, default=3, help="cancellations by each route (default 3)")
    ap.add_argument("--rewrite-lines", type=int, default=100_000, help="size of the rewritten file (default 100,000)")
    ap.add_argument("--cases", default="load,rewrite,start", help="which of load,rewrite,start to run (default all)")
    ap.add_argument("--python", action="store_true", help="also the pure-Python search fallback under load")
    ap.add_argument("--nice-off", action="store_true", help="also the load case with tool processes not niced")
    asyncio.run(main_async(ap.parse_args(argv)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
