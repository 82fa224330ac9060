"""Where the loop's per-step time goes, and what two suggested fixes would save.

    .venv/bin/python bench/why_loop.py [--steps 200] [--repeats 5]

Runs bench_loop's agent and baseline under four configurations, each in its own
process (the patches are process-wide), all patches applied in memory only:

* as-is: the code as it stands.
* drain: llm.read_stream reads the SSE body to its end after `data: [DONE]` instead of
  stopping there (as openai-python does), so httpx can put the connection back in its
  pool. Today every step opens a new TCP connection (a new TLS handshake against an
  https endpoint), because a response closed before its end cannot be reused.
* sniffio: a `sniffio` module is importable. httpcore calls
  `current_async_library()` whenever it sets up a lock or semaphore and starts with
  `import sniffio`; nothing installs sniffio any more (anyio 4.16 / httpx 0.28 do not
  require it), so every call is a failed import that walks sys.path (stat calls).
  Here a stub that answers "asyncio" stands in for `pip install sniffio`.
* drain+sniffio: both.

It also counts TCP connections the server accepted per run. The test server gets
TCP_NODELAY here as in bench_loop.py (see the README: without it a client that reuses
connections waits ~40 ms per request on delayed ACKs).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import types
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

CONFIGS = ("as-is", "drain", "sniffio", "drain+sniffio")


def apply(config: str) -> None:
    if "sniffio" in config:
        stub = types.ModuleType("sniffio")
        stub.current_async_library = lambda: "asyncio"  # type: ignore[attr-defined]
        sys.modules["sniffio"] = stub
    if "drain" in config:
        from agent_lsp.agent.model import llm
        original = llm.read_stream

        async def draining(lines):
            async for line in lines:
                if line.startswith("data:") and line[5:].strip() == "[DONE]":
                    async for _rest in lines:  # let the response end, so the connection is reusable
                        pass
                    yield line
                    return
                yield line

        llm.read_stream = lambda lines, on_text: original(draining(lines), on_text)


def child(config: str, steps: int, repeats: int) -> dict:
    apply(config)
    import tests.scripted_model as sm
    import bench_loop

    accepted = [0]
    setup = sm._Handler.setup

    def counting_setup(self):
        accepted[0] += 1
        setup(self)

    sm._Handler.setup = counting_setup
    script = bench_loop.make_script(steps, "read_file")
    out: dict = {"agent": [], "baseline": [], "agent_cpu": [], "baseline_cpu": []}
    with tempfile.TemporaryDirectory() as tmp:
        ws = Path(tmp)
        (ws / "tiny.txt").write_text("alpha\nbeta\ngamma\n")
        loop = asyncio.new_event_loop()
        _, bodies = loop.run_until_complete(bench_loop.run_agent(ws, script, steps, None))
        for i in range(repeats + 1):
            accepted[0] = 0
            c0 = bench_loop._cpu()
            dt, bodies = loop.run_until_complete(bench_loop.run_agent(ws, script, steps, None))
            c1 = bench_loop._cpu()
            out["connections"] = accepted[0]
            bt = loop.run_until_complete(bench_loop.run_baseline(script, bodies))
            c2 = bench_loop._cpu()
            if i:  # the first round is a warm-up
                out["agent"].append(dt)
                out["baseline"].append(bt)
                out["agent_cpu"].append(c1 - c0)
                out["baseline_cpu"].append(c2 - c1)
        loop.run_until_complete(loop.shutdown_asyncgens())
        loop.close()
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=200)
    ap.add_argument("--repeats", type=int, default=5, help="rounds over the four configs (default 5)")
    ap.add_argument("--child", choices=CONFIGS, help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    if a.child:
        print(json.dumps(child(a.child, a.steps, a.repeats)))
        return 0
    print(f"{a.steps} read_file steps + answer, {a.repeats} rounds over the configs (each a fresh process: "
          f"1 warm-up + 1 timed run of agent and baseline), {time.strftime('%Y-%m-%d %H:%M')}, "
          f"load average {os.getloadavg()[0]:.1f}\n")
    head = (f"{'config':<16}{'connections':>12}{'agent med s':>13}{'baseline med s':>16}{'overhead/step med':>19}"
            f"{'agent ms/step':>15}{'cpu overhead/step':>19}{'agent cpu/step':>16}")
    print(head)
    print("-" * len(head))
    results = {c: {"agent": [], "baseline": [], "agent_cpu": [], "baseline_cpu": []} for c in CONFIGS}
    for _ in range(a.repeats):  # round robin over fresh processes, so load drift hits every config alike
        for config in CONFIGS:
            p = subprocess.run([sys.executable, __file__, "--child", config, "--steps", str(a.steps),
                                "--repeats", "1"], capture_output=True, text=True, check=True)
            r = json.loads(p.stdout.strip().splitlines()[-1])
            for k in ("agent", "baseline", "agent_cpu", "baseline_cpu"):
                results[config][k] += r[k]
            results[config]["connections"] = r["connections"]
    for config, r in results.items():
        am, bm = statistics.median(r["agent"]), statistics.median(r["baseline"])
        ac, bc = statistics.median(r["agent_cpu"]), statistics.median(r["baseline_cpu"])
        print(f"{config:<16}{r['connections']:>12}{am:>13.3f}{bm:>16.3f}{(am - bm) / a.steps * 1000:>16.2f} ms"
              f"{am / a.steps * 1000:>12.2f} ms{(ac - bc) / a.steps * 1000:>16.2f} ms{ac / a.steps * 1000:>13.2f} ms")
    print("\nbaseline = the same request bodies replayed with bare httpx over one kept-alive connection "
          "(with the config's patches too: the sniffio stub speeds up the baseline as well)")
    print("cpu = CPU time of the whole process (agent or replaying client, scripted server thread, tool threads)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
