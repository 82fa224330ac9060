"""Loop overhead per step: Session.run_turn against the same HTTP traffic without the agent.

    .venv/bin/python bench/bench_loop.py [--steps 200] [--repeats 5] [--tool read_file|todo_write]

A ScriptedModel (tests/scripted_model.py, streaming SSE like a real server) answers a
script of `--steps` cheap tool calls (read_file of a three-line file, or todo_write),
then a final text answer. The agent runs it as one turn (`Session.run_turn`,
max_steps=250, streaming on, the default).

Baseline, measured in the same run: the very request bodies the agent sent (recorded by
the server) are replayed in order with a plain httpx.AsyncClient -- same URL, headers,
`json=` body, `stream: true`, the SSE response read line by line to its end -- against
a fresh server with the same script. Server work and bytes on the wire are therefore
identical; what is left is the agent: parsing the stream, building messages, running
the tools, bookkeeping.

    per-step overhead = (agent wall time - baseline wall time) / steps     (goal < 2 ms)

Agent and baseline runs alternate `--repeats` times (after one warm-up of each); the
table shows best and median. The agent is also timed with a transcript being written
(what `open_session` does), for information.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

import httpx  # noqa: E402

from agent_lsp.agent.diskhost import DiskHost  # noqa: E402
from agent_lsp.agent.loop import Session  # noqa: E402
from agent_lsp.agent.workspace.paths import Workspace  # noqa: E402
from agent_lsp.agent.settings import Settings  # noqa: E402
from agent_lsp.agent.state.transcript import Transcript  # noqa: E402
import tests.scripted_model as _sm  # noqa: E402
from tests.scripted_model import ScriptedModel, reply, tool_call  # noqa: E402

GOAL_MS = 2.0

# The scripted server writes each SSE chunk with its own send() and leaves Nagle's
# algorithm on; a client that reuses its connection then waits for a delayed ACK
# (~40 ms on Linux) on every response. Real servers set TCP_NODELAY; so does the bench.
_sm._Handler.disable_nagle_algorithm = True

def _cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


# TCP connections the scripted server accepted (counted per run)
_accepted = [0]
_setup = _sm._Handler.setup


def _counting_setup(self) -> None:
    _accepted[0] += 1
    _setup(self)


_sm._Handler.setup = _counting_setup


def make_script(steps: int, tool: str) -> list:
    out = []
    for i in range(steps):
        if tool == "todo_write":
            out.append(tool_call("todo_write", {"todos": [
                {"content": "look around", "status": "completed"},
                {"content": f"step {i}", "status": "in_progress"},
                {"content": "answer", "status": "pending"}]}))
        else:
            out.append(tool_call("read_file", {"path": "tiny.txt"}))
    out.append(reply("All done: read the file many times."))
    return out


def settings_for(model: ScriptedModel) -> Settings:
    return Settings(base_url=model.base_url, api_key="bench-key", model="scripted-model",
                    max_steps=250, stream=True, max_retries=0)


async def run_agent(workspace: Path, script: list, steps: int, transcript_dir: Path | None) -> tuple[float, list[dict]]:
    model = ScriptedModel(script).start()
    try:
        s = settings_for(model)
        tr = Transcript(directory=transcript_dir, scrub=s.scrub) if transcript_dir else None
        session = Session(Workspace([workspace]), DiskHost(), s, transcript=tr)
        t0 = time.perf_counter()
        result = await session.run_turn("Read tiny.txt over and over, then say you are done.")
        dt = time.perf_counter() - t0
        await session.client.aclose()
        if result.status != "done" or result.steps != steps + 1 or model.violations:
            raise RuntimeError(f"agent run went wrong: {result} violations={model.violations[:3]}")
        return dt, list(model.requests)
    finally:
        model.stop()


async def run_baseline(script: list, bodies: list[dict], keepalive: bool = True) -> float:
    """The agent's requests, replayed with bare httpx, the stream read to its end."""
    model = ScriptedModel(script).start()
    try:
        s = settings_for(model)
        limits = httpx.Limits() if keepalive else httpx.Limits(max_keepalive_connections=0)
        url = s.base_url.rstrip("/") + "/chat/completions"
        headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
                   "Authorization": f"Bearer {s.api_key}"}
        t0 = time.perf_counter()  # the agent makes its client inside run_turn too
        async with httpx.AsyncClient(timeout=httpx.Timeout(connect=15.0, read=s.request_timeout, write=60.0, pool=15.0),
                                     trust_env=True, limits=limits) as client:
            for body in bodies:
                async with client.stream("POST", url, json=body, headers=headers) as r:
                    if r.status_code != 200:
                        raise RuntimeError(f"baseline got HTTP {r.status_code}")
                    async for _line in r.aiter_lines():
                        pass
        dt = time.perf_counter() - t0
        if model.violations:
            raise RuntimeError(f"baseline violations: {model.violations[:3]}")
        return dt
    finally:
        model.stop()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=200)
    ap.add_argument("--repeats", type=int, default=5, help="timed runs of each side after one warm-up (default 5)")
    ap.add_argument("--tool", choices=("read_file", "todo_write"), default="read_file")
    a = ap.parse_args(argv)
    script = make_script(a.steps, a.tool)

    with tempfile.TemporaryDirectory(prefix="bench-loop-") as tmp:
        ws = Path(tmp) / "ws"
        ws.mkdir()
        (ws / "tiny.txt").write_text("alpha\nbeta\ngamma\n")
        trdir = Path(tmp) / "transcripts"
        os.environ["XDG_STATE_HOME"] = str(Path(tmp) / "state")  # never touch the real state dir

        runs = {
            "baseline": lambda: run_baseline(script, bodies),
            "baseline new conn": lambda: run_baseline(script, bodies, keepalive=False),
            "agent": lambda: run_agent(ws, script, a.steps, None),
            "agent+transcript": lambda: run_agent(ws, script, a.steps, trdir),
        }
        times: dict[str, list[float]] = {name: [] for name in runs}
        cpus: dict[str, list[float]] = {name: [] for name in runs}
        conns: dict[str, int] = {}
        loop = asyncio.new_event_loop()
        # warm-up (imports, first connections, caches); also gives the bodies to replay
        _, bodies = loop.run_until_complete(run_agent(ws, script, a.steps, None))
        for i in range(a.repeats + 1):
            for name, run in runs.items():  # interleaved, so drift hits every row alike
                _accepted[0] = 0
                c0 = _cpu()
                out = loop.run_until_complete(run())
                cpu = _cpu() - c0
                dt = out[0] if isinstance(out, tuple) else out
                if name == "agent":
                    bodies = out[1]
                conns[name] = _accepted[0]
                if i:
                    times[name].append(dt)
                    cpus[name].append(cpu)
        loop.run_until_complete(loop.shutdown_asyncgens())
        loop.close()

    n_req = len(bodies)
    last_kb = len(httpx.Request("POST", "http://x", json=bodies[-1]).content) / 1024
    print(f"{a.steps} tool steps ({a.tool}) + final answer = {n_req} streamed requests; "
          f"last request body {last_kb:.0f} KiB")
    print(f"python {platform.python_version()}, httpx {httpx.__version__}, {os.cpu_count()} cpus, "
          f"{time.strftime('%Y-%m-%d %H:%M')}, repeats={a.repeats} (+1 warm-up), load average {os.getloadavg()[0]:.1f}\n")
    head = (f"{'run':<19}{'TCP conns':>10}{'best s':>9}{'median s':>10}{'ms/step med':>13}"
            f"{'overhead/step best':>20}{'overhead/step med':>19}{'vs baseline':>13}{'cpu overhead/step':>19}")
    print(head)
    print("-" * len(head))
    bb, bm = min(times["baseline"]), statistics.median(times["baseline"])
    bc = statistics.median(cpus["baseline"])
    for name, ts in times.items():
        b, m = min(ts), statistics.median(ts)
        line = f"{name:<19}{conns[name]:>10}{b:>9.3f}{m:>10.3f}{m / a.steps * 1000:>10.2f} ms"
        if name != "baseline":
            line += f"{(b - bb) / a.steps * 1000:>17.2f} ms{(m - bm) / a.steps * 1000:>16.2f} ms{m / bm:>12.2f}x"
            line += f"{(statistics.median(cpus[name]) - bc) / a.steps * 1000:>16.2f} ms"
        print(line)
    over = (statistics.median(times["agent"]) - bm) / a.steps * 1000
    print(f"\nper-step overhead = (agent - baseline) / {a.steps} steps, median: {over:.2f} ms; goal < {GOAL_MS} ms "
          f"-> {'ok' if over < GOAL_MS else 'MISS'}")
    print("cpu overhead/step: the same difference in CPU time of the whole process (client, server thread, tool "
          "threads; user+sys), medians: much less sensitive to other load than wall time")
    print("baseline: the agent's own request bodies replayed with bare httpx over one kept-alive connection; "
          "'baseline new conn': the same with a new TCP connection per request (what the agent did before it drained streams)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
