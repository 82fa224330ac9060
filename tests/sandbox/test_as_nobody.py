"""The sandbox tests again as a person rather than root: `runuser -u nobody`.

Sessions and CI run as root, where bubblewrap needs no user namespace and could keep
every capability; people do not. So, run as root, this copies the code and these tests
to a folder every user can read and runs them there as `nobody` with the venv that
`.ci/install-sandbox.sh` makes from Debian's Python (pyenv's Pythons live under /root).
A copy, not the checkout: a CI clone may sit where `nobody` cannot read, and the copy
is always the code under test, never a stale install.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
VENV_PYTHON = Path("/opt/agent-lsp-venv/bin/python")
TEST_FILES = ["__init__.py", "conftest.py", "scripted_model.py", "helpers.py"]


def _missing(reason: str) -> None:
    if os.environ.get("CI"):
        pytest.fail(f"{reason} (run .ci/install-sandbox.sh)")
    pytest.skip(f"{reason} (run .ci/install-sandbox.sh)")


def _copy_tree(dest: Path) -> None:
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    shutil.copytree(REPO / "agent_lsp", dest / "agent_lsp", ignore=ignore)
    (dest / "tests").mkdir()
    for name in TEST_FILES:
        shutil.copy2(REPO / "tests" / name, dest / "tests" / name)
    shutil.copytree(REPO / "tests" / "sandbox", dest / "tests" / "sandbox", ignore=ignore)
    shutil.copy2(REPO / "pyproject.toml", dest / "pyproject.toml")


@pytest.mark.skipif(os.geteuid() != 0, reason="already not root: the other tests in this folder are the check")
def test_sandbox_tests_pass_as_nobody():
    if not VENV_PYTHON.exists():
        _missing(f"{VENV_PYTHON} not found")
    runuser = shutil.which("runuser") or shutil.which("runuser", path="/usr/sbin:/sbin")
    if not runuser:
        _missing("runuser not found")
    base = Path(tempfile.mkdtemp(prefix="agent-lsp-nobody-", dir="/var/tmp"))
    try:
        src = base / "src"
        _copy_tree(src)
        home = base / "home"
        home.mkdir()
        subprocess.run(["chmod", "-R", "a+rX", str(base)], check=True)
        shutil.chown(home, "nobody")
        env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": str(home), "PYTHONPATH": str(src),
               "LANG": "C.UTF-8", "PYTHONDONTWRITEBYTECODE": "1"}
        if os.environ.get("CI"):
            env["CI"] = os.environ["CI"]
        r = subprocess.run([runuser, "-u", "nobody", "--", str(VENV_PYTHON), "-m", "pytest", "-q", "-p",
                            "no:cacheprovider", "tests/sandbox", "-k", "not test_sandbox_tests_pass_as_nobody"],
                           cwd=src, env=env, capture_output=True, text=True, timeout=600, stdin=subprocess.DEVNULL)
        tail = (r.stdout + r.stderr)[-3000:]
        assert r.returncode == 0, tail
        summary = r.stdout.strip().splitlines()[-1]
        assert " passed" in summary and "skipped" not in summary and "failed" not in summary, tail
        print(f"as nobody: {summary}")
    finally:
        shutil.rmtree(base, ignore_errors=True)
