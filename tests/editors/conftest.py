"""Real editors end to end: which are here, and a fresh home plus workspace for each session."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.editors.coc_harness import CocEditor, find_coc
from tests.editors.harness import Editor, find_editors


def pytest_terminal_summary(terminalreporter):
    """Say which real editors ran, and why any did not (their tests skip, or fail under CI)."""
    terminalreporter.section("real editors (tests/editors)")
    for key, got in find_editors().items():
        if isinstance(got, Editor):
            terminalreporter.write_line(f"{key}: {got.version} ({got.path})")
        else:
            terminalreporter.write_line(f"{key}: MISSING, its tests were skipped (CI=true fails them): {got}")
    for key in ("vim9", "nvim012"):
        coc = find_coc(key)
        if isinstance(coc, CocEditor):
            terminalreporter.write_line(f"{key} + coc.nvim: {coc.version} ({coc.path}), coc.nvim at {coc.coc}")
        else:
            terminalreporter.write_line(f"{key} + coc.nvim: MISSING, its tests were skipped (CI=true fails them): {coc}")


CALC = '''def add(a, b):
    return a - b


def total(xs):
    s = 1
    for x in xs:
        s = add(s, x)
    return s
'''


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A workspace with calc.py: add() subtracts and total() starts at 1."""
    ws = tmp_path / "project"
    ws.mkdir()
    (ws / "calc.py").write_text(CALC)
    return ws


@pytest.fixture
def home(tmp_path: Path) -> Path:
    """A fresh HOME (and XDG dirs under it) for the editor: it writes there, not in ours."""
    h = tmp_path / "home"
    h.mkdir()
    return h
