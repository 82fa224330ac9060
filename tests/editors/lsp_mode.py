"""Emacs 28 + lsp-mode 8.0.0 (Debian `elpa-lsp-mode`), run the way a person runs it.

A session is `emacs -nw calc.py` on a pseudo-terminal (harness.py's terminal runner),
with a person's init.el: lsp-mode from python-mode-hook, agent-lsp registered either
by this repository's package (`(require 'agent-lsp-lsp-mode)` from emacs-client/ on
`load-path`) or by the plain `lsp-register-client` lsp-mode's docs give, and ruff
(`ruff server`, PyPI) beside it or not. tests/editors/lsp_mode_driver.el drives it.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.editors.harness import Session, _first_line, _run_in_terminal, session_env

REPO = Path(__file__).resolve().parents[2]
PACKAGE_DIR = REPO / "emacs-client"
DRIVER = Path(__file__).resolve().parent / "lsp_mode_driver.el"
ELPA = Path("/usr/share/emacs/site-lisp/elpa")

# the person's lines for ruff: lsp-mode 8.0.0 has no client for `ruff server`, so one registers it
RUFF_CLIENT = """(lsp-register-client
 (make-lsp-client :new-connection (lsp-stdio-connection '("ruff" "server"))
                  :activation-fn (lsp-activate-on "python")
                  :server-id 'ruff))
"""
# lsp-mode's documented way to add a server, for agent-lsp, without this repository's package
STOCK_CLIENT = """(lsp-register-client
 (make-lsp-client :new-connection (lsp-stdio-connection '("agent-lsp" "serve"))
                  :activation-fn (lsp-activate-on "python")
                  :server-id 'agent-lsp
                  :add-on? t))
"""


def find() -> tuple[str, str] | str:
    """(emacs path, version line), or why lsp-mode sessions cannot run here."""
    emacs = os.environ.get("EMACS") or shutil.which("emacs") or ""
    if not emacs or not shutil.which(emacs):
        return "emacs not found (run .ci/install-lsp-mode.sh: emacs-nox elpa-lsp-mode)"
    found = sorted(ELPA.glob("lsp-mode-8.0.0*"))
    if not found:
        return f"lsp-mode 8.0.0 not found under {ELPA} (run .ci/install-lsp-mode.sh)"
    if not (Path(sys.executable).parent / "ruff").exists() and not shutil.which("ruff"):
        return "ruff not found (a dev dependency: pip install -e '.[dev]')"
    return emacs, f"{_first_line([emacs, '--version'], dict(os.environ))} + {found[-1].name}"


def require() -> str:
    """The Emacs binary, or skip (outside CI) / fail (CI=true) with the reason."""
    got = find()
    if isinstance(got, tuple):
        return got[0]
    if os.environ.get("CI"):
        pytest.fail(f"lsp-mode missing in CI: {got}")
    pytest.skip(got)


def init_el(*, package: bool, ruff: bool, settings: dict[str, Any] | None = None) -> str:
    """A person's init.el. The lines after "tests only" keep the session quiet and recorded."""
    lines = [";;; init.el --- a person's init file: lsp-mode with agent-lsp  -*- lexical-binding: t -*-",
             "(require 'lsp-mode)"]
    if package:
        lines.append(f"(add-to-list 'load-path {json.dumps(str(PACKAGE_DIR))})")
        if settings:
            plist = " ".join(f":{k} {json.dumps(v)}" for k, v in settings.items())
            lines.append(f"(setq agent-lsp-lsp-mode-settings '({plist}))")
        lines.append("(require 'agent-lsp-lsp-mode)")
    else:
        lines.append(STOCK_CLIENT)
    if ruff:
        lines.append(RUFF_CLIENT)
    lines += [
        "(add-hook 'python-mode-hook #'lsp)",
        ";; tests only: no project-root question (the file's folder is the root), lsp-mode's",
        ";; record of the traffic kept, nothing slow or unrelated started",
        "(setq lsp-auto-guess-root t lsp-log-io t lsp-enable-file-watchers nil",
        "      lsp-headerline-breadcrumb-enable nil lsp-enable-snippet nil lsp-restart 'ignore",
        "      lsp-keep-workspace-alive nil)",
    ]
    return "\n".join(lines) + "\n"


def run_lsp_mode(file: Path, plan: dict[str, Any], home: Path, model_url: str, *, package: bool = True,
                 ruff: bool = False, settings: dict[str, Any] | None = None, timeout: float = 45) -> Session:
    """One `emacs -nw FILE` session with lsp-mode; the driver's result plus each server's io log."""
    emacs = require()
    env = session_env(home, model_url)
    init = home / ".emacs.d" / "init.el"
    init.parent.mkdir(parents=True, exist_ok=True)
    # (tests only: a fresh HOME would native-compile every package again in the background)
    (init.parent / "early-init.el").write_text("(setq native-comp-deferred-compilation nil)\n")
    init.write_text(init_el(package=package, ruff=ruff, settings=settings))
    argv = [emacs, "-nw", str(file), "-l", str(DRIVER)]
    return _run_in_terminal(argv, env, file, plan, home, timeout)


def io_log(home: Path, server: str) -> str:
    """lsp-mode's record of the traffic with `server` (agent-lsp, ruff), as the driver saved it."""
    path = home / f"{server}.io.log"
    return path.read_text(errors="replace") if path.is_file() else ""
