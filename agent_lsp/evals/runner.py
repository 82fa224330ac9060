"""Running a suite: each attempt in a fresh copy of its task, the agent in a process of its own.

The agent runs as a separate process group (`agent-lsp run --yes`, or the LSP client of
via_lsp.py driving `agent-lsp serve`), so a hang or a crash costs one row, never the
run: at the timeout the whole tree is killed, the commands the agent started in their
own sessions included. Figures come from the run's transcript (its `turn_end` record
carries steps and tokens), the same file a person opens to see why a task failed.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import shutil
import signal
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Callable

from ..agent.model.compaction import estimate_tokens, message_size
from ..agent.settings import Settings
from .task import Task

EXIT_STATUS = {0: "done", 1: "error", 3: "stepLimit", 130: "cancelled"}
OUTPUT_TAIL = 2_000


@dataclass
class RunResult:
    task: str
    attempt: int
    passed: bool = False
    status: str = "crashed"  # done | stepLimit | error | timeout | crashed | cancelled | setupFailed
    reason: str = ""
    steps: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    tokens_estimated: bool = False
    seconds: float = 0.0
    answer: str = ""
    transcript: str | None = None
    workspace: str = ""
    check_exit: int | None = None
    check_output: str = ""

    def as_dict(self) -> dict:
        return asdict(self)


@dataclass
class Plan:
    """What every run of one eval shares."""

    settings: Settings
    out: Path
    via: str = "cli"
    max_steps: int | None = None  # overrides every task's
    timeout: float | None = None  # overrides every task's


# ------------------------------------------------------------ processes


def _descendants(pid: int) -> list[int]:
    """Every process below `pid`, from /proc (the agent's commands run in sessions of their own)."""
    children: dict[int, list[int]] = {}
    try:
        entries = os.listdir("/proc")
    except OSError:
        return []
    for name in entries:
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as f:
                stat = f.read().decode("utf-8", "replace")
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        children.setdefault(ppid, []).append(int(name))
    out, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            out.append(child)
            todo.append(child)
    return out


def kill_tree(pid: int) -> None:
    """SIGKILL the process group of `pid` and of everything it started."""
    for p in [pid, *_descendants(pid)]:
        for kill in (lambda: os.killpg(os.getpgid(p), signal.SIGKILL), lambda: os.kill(p, signal.SIGKILL)):
            try:
                kill()
            except (ProcessLookupError, PermissionError, OSError):
                pass


async def run_process(cmd: list[str], *, cwd: Path, env: dict[str, str], timeout: float,
                      stdout: Path, stderr: Path) -> int | None:
    """Run to the end, or kill the tree at `timeout` and return None."""
    with open(stdout, "wb") as out, open(stderr, "ab") as err:
        proc = await asyncio.create_subprocess_exec(
            *cmd, cwd=str(cwd), env=env, stdin=asyncio.subprocess.DEVNULL, stdout=out, stderr=err,
            start_new_session=True)
        try:
            return await asyncio.wait_for(proc.wait(), timeout)
        except asyncio.TimeoutError:
            kill_tree(proc.pid)
            await proc.wait()
            return None
        except asyncio.CancelledError:  # Ctrl-C on the eval: leave nothing running
            kill_tree(proc.pid)
            raise


async def run_shell(command: str, *, cwd: Path, env: dict[str, str], timeout: float, log: Path) -> tuple[int | None, str]:
    rc = await run_process(["bash", "-c", command], cwd=cwd, env=env, timeout=timeout, stdout=log, stderr=log)
    text = log.read_text(encoding="utf-8", errors="replace")
    return rc, text[-OUTPUT_TAIL:]


# ------------------------------------------------------------ one run


def prepare(task: Task, run_dir: Path) -> Path:
    """A fresh copy of the task's repo/ (and nothing else: never task.toml, never solution/)."""
    if run_dir.exists():
        shutil.rmtree(run_dir)
    run_dir.mkdir(parents=True)
    work = run_dir / "work"
    # pip compiles the .py files of an installed package, the task's included: leave those out
    shutil.copytree(task.repo, work, symlinks=True, ignore=shutil.ignore_patterns("__pycache__"))
    return work


def task_env(task: Task, base: dict[str, str] | None = None) -> dict[str, str]:
    """The environment of setup and check: TASK_DIR lets a check compare with the untouched repo/."""
    env = dict(os.environ if base is None else base)
    for secret in ("AGENT_API_KEY", "OPENAI_API_KEY"):
        env.pop(secret, None)
    env["TASK_DIR"] = str(task.directory)
    return env


def _agent_env(plan: Plan, run_dir: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["AGENT_BASE_URL"] = plan.settings.base_url
    env["AGENT_MODEL"] = plan.settings.model
    env["XDG_STATE_HOME"] = str(run_dir / "state")  # the run's transcript lands beside it
    env["PYTHONUNBUFFERED"] = "1"
    return env


def _agent_cmd(plan: Plan, task: Task, work: Path, run_dir: Path, max_steps: int) -> list[str]:
    if plan.via == "lsp":
        return [sys.executable, "-m", "agent_lsp.evals.via_lsp", "--workspace", str(work), "--max-steps",
                str(max_steps), "--result", str(run_dir / "result.json"), "--", task.prompt]
    return [sys.executable, "-m", "agent_lsp", "run", "--yes", "-C", str(work), "--max-steps", str(max_steps),
            "--", task.prompt]


def read_transcript(run_dir: Path) -> tuple[str | None, dict]:
    """The run's transcript path and its figures: the last turn_end record, or, for a run that
    was killed before it ended, steps and tokens estimated from the messages it recorded."""
    files = sorted((run_dir / "state" / "agent-lsp").glob("*.jsonl"))
    if not files:
        return None, {}
    end: dict = {}
    messages: list[dict] = []
    for line in files[-1].read_text(encoding="utf-8", errors="replace").splitlines():
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if record.get("kind") == "turn_end" and isinstance(record.get("data"), dict):
            end = record["data"]
        elif record.get("kind") == "message" and isinstance(record.get("data"), dict):
            messages.append(record["data"])
    if not end and messages:
        sizes = [message_size(m) for m in messages]
        replies = [i for i, m in enumerate(messages) if m.get("role") == "assistant"]
        end = {"steps": sum(1 for i in replies if messages[i].get("tool_calls")),
               "prompt_tokens": sum(estimate_tokens(sum(sizes[:i])) for i in replies),
               "completion_tokens": sum(estimate_tokens(sizes[i]) for i in replies),
               "tokens_estimated": True}
    return str(files[-1]), end


# Lines that end a tool's output without saying what went wrong: node's version banner and
# stack frames, the counters of node --test's TAP summary.
_NOISE = re.compile(r"^(at |Node\.js v\d|# (duration_ms|todo|skipped|cancelled|suites|pass|tests) )")


def _last_line(text: str, prefix: str = "") -> str:
    """The line of a command's output most likely to say why it failed: the last that is not noise."""
    lines = [ln.strip() for ln in text.splitlines() if ln.strip() and ln.strip().startswith(prefix)]
    telling = [ln for ln in lines if not _NOISE.match(ln)]
    picked = (telling or lines or [""])[-1]
    return picked[:300]


async def run_one(plan: Plan, task: Task, attempt: int) -> RunResult:
    result = RunResult(task.name, attempt)
    run_dir = plan.out / f"{task.name}-{attempt}"
    t0 = time.monotonic()
    try:
        work = prepare(task, run_dir)
    except OSError as e:
        result.reason = f"cannot copy the task's repo/: {e}"
        return result
    result.workspace = str(work)
    log = run_dir / "agent.log"
    try:
        if task.setup:
            rc, out = await run_shell(task.setup, cwd=work, env=task_env(task), timeout=task.check_timeout,
                                      log=run_dir / "setup.log")
            if rc != 0:
                result.status = "setupFailed"
                result.reason = f"setup {'timed out' if rc is None else f'failed (exit {rc})'}: {_last_line(out)}"
                return result
        timeout = plan.timeout or task.timeout
        max_steps = plan.max_steps or task.max_steps or plan.settings.max_steps
        answer_file = run_dir / "answer.txt"
        rc = await run_process(_agent_cmd(plan, task, work, run_dir, max_steps), cwd=work,
                               env=_agent_env(plan, run_dir), timeout=timeout, stdout=answer_file, stderr=log)
        result.transcript, end = read_transcript(run_dir)
        result.steps = int(end.get("steps") or 0)
        result.prompt_tokens = int(end.get("prompt_tokens") or 0)
        result.completion_tokens = int(end.get("completion_tokens") or 0)
        result.tokens_estimated = bool(end.get("tokens_estimated", False))
        errors = log.read_text(encoding="utf-8", errors="replace")
        if plan.via == "lsp":
            status, answer = _lsp_outcome(run_dir, rc)
        else:
            status = "timeout" if rc is None else EXIT_STATUS.get(rc, "crashed")
            answer = answer_file.read_text(encoding="utf-8", errors="replace").strip()
        result.status, result.answer = status, answer
        if status == "timeout":
            result.reason = f"timed out after {timeout:g}s"
        elif status == "stepLimit":
            result.reason = f"ran out of steps ({max_steps})"
        elif status == "error":
            result.reason = _last_line(errors, "[error]").removeprefix("[error]").strip() or answer[:300] or "error"
        elif status == "crashed":
            result.reason = f"the agent crashed (exit {rc}): {_last_line(errors)}"
        elif status == "cancelled":
            result.reason = "the agent was cancelled"
        if status != "done":
            return result
        rc, out = await run_shell(task.check, cwd=work, env=task_env(task), timeout=task.check_timeout,
                                  log=run_dir / "check.log")
        result.check_exit, result.check_output = rc, out
        result.passed = rc == 0
        if rc == 0:
            result.reason = "check passed"
        elif rc is None:
            result.reason = f"check timed out after {task.check_timeout:g}s"
        else:
            result.reason = f"check failed (exit {rc}): {_last_line(out)}"
        return result
    except OSError as e:  # the harness could not start a process or read its files: this row only
        result.status, result.reason = "crashed", f"harness: {type(e).__name__}: {e}"
        return result
    finally:
        result.seconds = round(time.monotonic() - t0, 2)


def _lsp_outcome(run_dir: Path, rc: int | None) -> tuple[str, str]:
    if rc is None:
        return "timeout", ""
    try:
        data = json.loads((run_dir / "result.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return "crashed", ""
    return str(data.get("status") or "crashed"), str(data.get("answer") or "")


# ------------------------------------------------------------ the suite


async def run_suite(plan: Plan, tasks: list[Task], repeat: int = 1, jobs: int = 1,
                    on_change: Callable[[list[str], list[RunResult], int], None] = lambda *_: None) -> list[RunResult]:
    """Every task `repeat` times, `jobs` at once; results in suite order, whatever order they end in."""
    todo = [(t, a) for t in tasks for a in range(1, repeat + 1)]
    done: list[RunResult] = []
    running: list[str] = []
    gate = asyncio.Semaphore(max(1, jobs))

    async def one(task: Task, attempt: int) -> RunResult:
        async with gate:
            label = task.name if repeat == 1 else f"{task.name}#{attempt}"
            running.append(label)
            on_change(running, done, len(todo))
            try:
                r = await run_one(plan, task, attempt)
            finally:
                running.remove(label)
            done.append(r)
            on_change(running, done, len(todo))
            return r

    results = await asyncio.gather(*(one(t, a) for t, a in todo))
    return list(results)
