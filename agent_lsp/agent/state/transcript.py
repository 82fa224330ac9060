"""Session transcripts: every message appended as one JSON line, for debugging and evals.

Files live under $XDG_STATE_HOME/agent-lsp/ (default ~/.local/state/agent-lsp/). A
transcript that cannot be written never breaks the session: it is a record, not state.
"""

from __future__ import annotations

import json
import time
import uuid
from pathlib import Path
from typing import Any, Callable, Iterable

from . import state_dir


class Transcript:
    def __init__(self, directory: Path | None = None, scrub: Callable[[str], str] = lambda t: t,
                 roots: Iterable[Path | str] = ()) -> None:
        self.session_id = time.strftime("%Y%m%d-%H%M%S") + "-" + uuid.uuid4().hex[:8]
        self.path = (directory or state_dir()) / f"{self.session_id}.jsonl"
        self._scrub = scrub
        self.broken: str | None = None
        self._roots: list[str] = []
        self._written_roots: list[str] = []
        self.set_workspace(roots)

    def set_workspace(self, roots: Iterable[Path | str]) -> None:
        """The folders this session works on; a `session` line records them (again, when
        they change) so an editor can list the sessions of its own workspace."""
        self._roots = [str(r) for r in roots]

    def record(self, kind: str, payload: Any) -> None:
        if self.broken:
            return
        if self._roots and sorted(self._roots) != sorted(self._written_roots):
            self._written_roots = list(self._roots)
            self.record("session", {"workspace": self._written_roots})
        line = json.dumps({"t": round(time.time(), 3), "kind": kind, "data": payload}, ensure_ascii=False)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with open(self.path, "a", encoding="utf-8") as f:
                f.write(self._scrub(line) + "\n")
        except OSError as e:
            self.broken = str(e)
