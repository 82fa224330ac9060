"""`agent-lsp demo`: the reference demo, recreated — a fizzbuzz with an off-by-one and a failing test.

It checks the endpoint first: with nothing listening, a person gets the exact
commands to point the agent at OpenAI, Ollama, vLLM or a llama.cpp server instead
of a stack of retries.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
from pathlib import Path

from ..agent.model.endpoint import endpoint_problem
from ..flags import settings_from_flags
from .commands import cmd_run

TASK = "run the tests, fix the bug, run them again"

# The demo's files are the built-in eval task's (`agent-lsp eval --tasks fizzbuzz`): one copy.
_REPO = Path(__file__).resolve().parent.parent / "evals" / "builtin" / "fizzbuzz" / "repo"
FIZZBUZZ = (_REPO / "fizzbuzz.py").read_text(encoding="utf-8")
TEST = (_REPO / "test_fizzbuzz.py").read_text(encoding="utf-8")

HOW_TO = """agent-lsp demo: no model answers at {url} ({why}).
Point the agent at an OpenAI-compatible endpoint, then run the demo again:

  OpenAI:     export OPENAI_API_KEY=sk-...            (AGENT_MODEL defaults to gpt-4o-mini)
  Ollama:     ollama serve & ollama pull qwen2.5-coder
              export AGENT_BASE_URL=http://localhost:11434/v1 AGENT_MODEL=qwen2.5-coder
  vLLM:       vllm serve Qwen/Qwen2.5-Coder-7B-Instruct --enable-auto-tool-choice --tool-call-parser hermes
              export AGENT_BASE_URL=http://localhost:8000/v1 AGENT_MODEL=Qwen/Qwen2.5-Coder-7B-Instruct
  llama.cpp:  llama-server -m model.gguf --jinja --port 8080
              export AGENT_BASE_URL=http://localhost:8080/v1 AGENT_MODEL=local

  then:       agent-lsp demo          (add --yes to approve every step)
"""


def make_scratch(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "fizzbuzz.py").write_text(FIZZBUZZ)
    (folder / "test_fizzbuzz.py").write_text(TEST)
    return folder


def run_demo(args: argparse.Namespace) -> int:
    settings, _ = settings_from_flags(args)
    why = endpoint_problem(settings)
    if why is not None:
        print(HOW_TO.format(url=settings.base_url, why=why), file=sys.stderr)
        return 2
    folder = make_scratch(Path(tempfile.mkdtemp(prefix="agent-lsp-demo-")))
    print(f"demo workspace: {folder}\n$ agent-lsp run \"{TASK}\"", file=sys.stderr)
    args.directory = str(folder)
    return asyncio.run(cmd_run(args, TASK))
