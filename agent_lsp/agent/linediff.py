"""Line diffs for edits and previews.

(Placeholder on difflib; the speed work replaces the algorithm behind the same signature.)
"""

from __future__ import annotations

import difflib
from typing import Sequence


def opcodes(a: Sequence[str], b: Sequence[str]) -> list[tuple[str, int, int, int, int]]:
    """SequenceMatcher-style opcodes ('equal', 'replace', 'delete', 'insert') turning a into b."""
    return difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes()
