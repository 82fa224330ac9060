"""Eval tasks and suites: a task is a folder with `task.toml` and `repo/`; a suite is a folder of tasks.

Everything a person can get wrong in a task file is refused here, before any agent
runs, with the file and the key named: a suite that half-runs and then dies on a typo
in its ninth task wastes the model time of the first eight.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path

BUILTIN = Path(__file__).resolve().parent / "builtin"
DEFAULT_TIMEOUT = 600.0
DEFAULT_CHECK_TIMEOUT = 120.0
KNOWN_KEYS = {"prompt", "check", "timeout", "setup", "max_steps", "tags", "check_timeout"}


class SuiteError(Exception):
    """A suite or task that cannot be run, said in one line."""


@dataclass(frozen=True)
class Task:
    name: str
    directory: Path
    prompt: str
    check: str
    timeout: float = DEFAULT_TIMEOUT
    setup: str | None = None
    max_steps: int | None = None
    tags: tuple[str, ...] = field(default_factory=tuple)
    check_timeout: float = DEFAULT_CHECK_TIMEOUT

    @property
    def repo(self) -> Path:
        return self.directory / "repo"

    @property
    def solution(self) -> Path:
        return self.directory / "solution"


def load_task(directory: Path) -> Task:
    toml = directory / "task.toml"
    try:
        data = tomllib.loads(toml.read_text(encoding="utf-8"))
    except OSError as e:
        raise SuiteError(f"{toml}: cannot read: {e.strerror or e}") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
        raise SuiteError(f"{toml}: not valid TOML: {e}") from None
    if not (directory / "repo").is_dir():
        raise SuiteError(f"{directory}: a task needs a repo/ folder (the files the agent starts from)")
    unknown = sorted(set(data) - KNOWN_KEYS)
    if unknown:
        raise SuiteError(f"{toml}: unknown key(s) {', '.join(unknown)}; known: {', '.join(sorted(KNOWN_KEYS))}")

    def text(key: str, required: bool) -> str | None:
        value = data.get(key)
        if value is None and not required:
            return None
        if not isinstance(value, str) or not value.strip():
            raise SuiteError(f"{toml}: `{key}` must be a non-empty string")
        return value

    def number(key: str, default: float | None, kind: type) -> float | None:
        value = data.get(key, default)
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0 or (
                kind is int and not isinstance(value, int)):
            raise SuiteError(f"{toml}: `{key}` must be a positive {'integer' if kind is int else 'number'}")
        return value

    tags = data.get("tags", [])
    if not isinstance(tags, list) or not all(isinstance(t, str) for t in tags):
        raise SuiteError(f"{toml}: `tags` must be a list of strings")
    return Task(
        name=directory.name,
        directory=directory,
        prompt=text("prompt", True) or "",
        check=text("check", True) or "",
        timeout=float(number("timeout", DEFAULT_TIMEOUT, float) or DEFAULT_TIMEOUT),
        setup=text("setup", False),
        max_steps=number("max_steps", None, int),  # type: ignore[arg-type]
        tags=tuple(tags),
        check_timeout=float(number("check_timeout", DEFAULT_CHECK_TIMEOUT, float) or DEFAULT_CHECK_TIMEOUT),
    )


def suite_dir(spec: str) -> Path:
    return BUILTIN if spec == "builtin" else Path(spec).expanduser().resolve()


def load_suite(spec: str, names: list[str] | None = None) -> list[Task]:
    """The tasks of a suite, sorted by name; `names` picks some, in the suite's order."""
    root = suite_dir(spec)
    if not root.is_dir():
        raise SuiteError(f"no such suite folder: {spec}")
    tasks = [load_task(d) for d in sorted(root.iterdir()) if d.is_dir() and (d / "task.toml").is_file()]
    if not tasks:
        raise SuiteError(f"{root}: no tasks (a task is a folder holding task.toml and repo/)")
    if names:
        by_name = {t.name: t for t in tasks}
        missing = [n for n in names if n not in by_name]
        if missing:
            raise SuiteError(f"no task named {', '.join(missing)} in {root} (see agent-lsp eval --list)")
        wanted = set(names)
        tasks = [t for t in tasks if t.name in wanted]
    return tasks
