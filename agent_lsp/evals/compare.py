"""`agent-lsp eval --compare A.json B.json`: what changed between two runs, task by task.

This is how a prompt change is judged: the tasks that flipped, then the change in pass
rate and tokens. Tasks only one run has are listed too, so a changed suite is visible.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .table import Row, duration, rows, summary


class CompareError(Exception):
    pass


def load_report(path: str) -> dict[str, Any]:
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as e:
        raise CompareError(f"cannot read {path}: {e.strerror or e}") from None
    except ValueError as e:
        raise CompareError(f"{path} is not JSON: {e}") from None
    if not isinstance(data, dict) or not isinstance(data.get("runs"), list) or not all(
            isinstance(r, dict) and isinstance(r.get("task"), str) for r in data["runs"]):
        raise CompareError(f"{path} is not an agent-lsp eval report (no runs list)")
    return data


def _verdict(row: Row | None) -> str:
    if row is None:
        return "-"
    return ("pass" if row.passed else "FAIL") + (f" {row.passes}/{row.attempts}" if row.attempts > 1 else "")


def _delta(a: float, b: float, fmt=lambda n: f"{n:,}") -> str:
    d = b - a
    pct = f" ({d / a * 100:+.1f}%)" if a else ""
    return f"{fmt(a)} -> {fmt(b)}  {'+' if d >= 0 else '-'}{fmt(abs(d))}{pct}"


def compare(path_a: str, path_b: str) -> str:
    a, b = load_report(path_a), load_report(path_b)
    ra = {r.task: r for r in rows(a["runs"])}
    rb = {r.task: r for r in rows(b["runs"])}
    names = list(ra) + [n for n in rb if n not in ra]
    lines = [f"A: {path_a}", f"B: {path_b}", ""]
    width = max(len(n) for n in names) if names else 4
    changed = 0
    for n in names:
        x, y = ra.get(n), rb.get(n)
        flip = (x is None) != (y is None) or (x is not None and y is not None and x.passed != y.passed)
        changed += flip
        mark = "  " if not flip else ("+ " if y is not None and y.passed else "- ")
        tok_a = (x.prompt_tokens + x.completion_tokens) if x else 0
        tok_b = (y.prompt_tokens + y.completion_tokens) if y else 0
        lines.append(f"{mark}{n.ljust(width)}  {_verdict(x):>8} -> {_verdict(y):<8}  tokens {tok_a:,} -> {tok_b:,}"
                     f"  steps {x.steps if x else '-'} -> {y.steps if y else '-'}")
    sa = summary(a["runs"], float((a.get("summary") or {}).get("seconds") or 0))
    sb = summary(b["runs"], float((b.get("summary") or {}).get("seconds") or 0))
    lines += [
        "",
        f"{changed} task(s) changed (+ now passes, - now fails or is missing)",
        f"pass rate: {sa['pass_rate'] * 100:.1f}% ({sa['passed']}/{sa['total']}) -> "
        f"{sb['pass_rate'] * 100:.1f}% ({sb['passed']}/{sb['total']})  "
        f"{(sb['pass_rate'] - sa['pass_rate']) * 100:+.1f} points",
        "prompt tokens: " + _delta(sa["prompt_tokens"], sb["prompt_tokens"]),
        "completion tokens: " + _delta(sa["completion_tokens"], sb["completion_tokens"]),
        "time: " + _delta(sa["seconds"], sb["seconds"], duration),
    ]
    if sa["tokens_estimated"] or sb["tokens_estimated"]:
        lines.append("(some token counts are estimates: "
                     + ", ".join(p for p, s in ((path_a, sa), (path_b, sb)) if s["tokens_estimated"]) + ")")
    return "\n".join(lines)
