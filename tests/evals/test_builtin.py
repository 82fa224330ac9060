"""Every built-in task's check, verified both ways: it fails on the untouched repo/ and passes on solution/.

solution/ is laid over a copy of repo/ (docs/evals.md), the setup runs first, and the
check runs exactly as the harness runs it (runner.run_shell, same environment).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from agent_lsp.evals.runner import prepare, run_shell, task_env
from agent_lsp.evals.task import load_suite

TASKS = load_suite("builtin")


async def _check(task, run_dir: Path, with_solution: bool) -> tuple[int | None, str]:
    work = prepare(task, run_dir)
    if with_solution:
        shutil.copytree(task.solution, work, dirs_exist_ok=True, symlinks=True,
                        ignore=shutil.ignore_patterns("__pycache__"))
    if task.setup:
        rc, out = await run_shell(task.setup, cwd=work, env=task_env(task), timeout=60, log=run_dir / "setup.log")
        assert rc == 0, f"setup failed: {out}"
    return await run_shell(task.check, cwd=work, env=task_env(task), timeout=60, log=run_dir / "check.log")


def test_the_builtin_suite_has_the_promised_shape():
    assert len(TASKS) >= 12
    tags = {tag for t in TASKS for tag in t.tags}
    assert {"python", "javascript", "shell"} <= tags
    assert {"demo", "multi-file", "grep", "keep-test", "error-message", "refuse"} <= tags
    for t in TASKS:
        assert t.solution.is_dir(), f"{t.name} has no solution/"
        assert not (t.repo / "solution").exists() and not (t.repo / "task.toml").exists()


@pytest.mark.parametrize("task", TASKS, ids=[t.name for t in TASKS])
async def test_check_fails_on_repo_and_passes_on_solution(task, tmp_path):
    rc, out = await _check(task, tmp_path / "untouched", with_solution=False)
    assert rc not in (0, None), f"{task.name}: the check passes on the untouched repo/:\n{out}"
    rc, out = await _check(task, tmp_path / "solved", with_solution=True)
    assert rc == 0, f"{task.name}: the check fails on solution/:\n{out}"
