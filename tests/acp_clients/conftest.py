"""Real ACP clients nobody here wrote (Toad, acpc) against `agent-lsp acp`; see real_clients.py."""

from __future__ import annotations

import pytest

pytest.importorskip("acp", reason="the ACP SDK is not installed (pip install -e '.[dev]')")
