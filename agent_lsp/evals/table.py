"""The figures of an eval: per-task rows (pass@k over attempts), the summary, the JSON report.

A task passes at k when any of its k attempts passed. Token counts that were partly
estimated (the server sent no `usage`) carry a `~`, so nobody compares an estimate
with a measurement without seeing it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable

from .runner import RunResult


@dataclass
class Row:
    task: str
    attempts: int
    passes: int
    steps: int
    prompt_tokens: int
    completion_tokens: int
    tokens_estimated: bool
    seconds: float
    reason: str

    @property
    def passed(self) -> bool:
        return self.passes > 0


def rows(runs: Iterable[dict[str, Any]]) -> list[Row]:
    """One row per task, in the order the runs list them; runs are dicts as in the JSON report."""
    out: dict[str, Row] = {}
    for r in runs:
        row = out.get(r["task"])
        if row is None:
            row = out[r["task"]] = Row(r["task"], 0, 0, 0, 0, 0, False, 0.0, "")
        row.attempts += 1
        row.passes += bool(r.get("passed"))
        row.steps += int(r.get("steps") or 0)
        row.prompt_tokens += int(r.get("prompt_tokens") or 0)
        row.completion_tokens += int(r.get("completion_tokens") or 0)
        row.tokens_estimated |= bool(r.get("tokens_estimated"))
        row.seconds += float(r.get("seconds") or 0)
        if not r.get("passed") or not row.reason:
            row.reason = str(r.get("reason") or "")
    return list(out.values())


def summary(runs: list[dict[str, Any]], seconds: float) -> dict[str, Any]:
    rs = rows(runs)
    passed = sum(r.passed for r in rs)
    return {
        "passed": passed,
        "total": len(rs),
        "pass_rate": round(passed / len(rs), 4) if rs else 0.0,
        "prompt_tokens": sum(r.prompt_tokens for r in rs),
        "completion_tokens": sum(r.completion_tokens for r in rs),
        "tokens_estimated": any(r.tokens_estimated for r in rs),
        "seconds": round(seconds, 2),
        "k": max((r.attempts for r in rs), default=0),
        "runs_passed": sum(bool(r.get("passed")) for r in runs),
        "runs_total": len(runs),
    }


def report(results: list[RunResult], seconds: float, meta: dict[str, Any]) -> dict[str, Any]:
    runs = [r.as_dict() for r in results]
    return {"summary": summary(runs, seconds), "runs": runs, "meta": meta}


def tokens(n: int, estimated: bool) -> str:
    return f"{n:,}" + ("~" if estimated else "")


def duration(seconds: float) -> str:
    if seconds < 60:
        return f"{seconds:.1f}s"
    m, s = divmod(int(round(seconds)), 60)
    return f"{m}m{s:02d}s"


def render(data: dict[str, Any]) -> str:
    """The table a person reads: a row per task, then the totals."""
    rs = rows(data["runs"])
    s = data["summary"]
    k = s.get("k", 1)
    head = ["task", "result" if k <= 1 else f"pass@{k}", "steps", "prompt tok", "compl tok", "time", "reason"]
    body = []
    for r in rs:
        verdict = ("pass" if r.passed else "FAIL") + ("" if k <= 1 else f" {r.passes}/{r.attempts}")
        body.append([r.task, verdict, str(r.steps), tokens(r.prompt_tokens, r.tokens_estimated),
                     tokens(r.completion_tokens, r.tokens_estimated), duration(r.seconds),
                     "" if r.passed and k <= 1 else r.reason[:70]])
    widths = [max(len(x[i]) for x in [head, *body]) for i in range(len(head))]
    right = {2, 3, 4, 5}

    def line(cells: list[str]) -> str:
        return "  ".join(c.rjust(w) if i in right else c.ljust(w) for i, (c, w) in enumerate(zip(cells, widths))).rstrip()

    out = [line(head), line(["-" * w for w in widths]), *map(line, body)]
    est = s.get("tokens_estimated")
    out.append("")
    out.append(f"passed {s['passed']}/{s['total']} ({s['pass_rate'] * 100:.1f}%)"
               + (f", pass@{k}; {s['runs_passed']}/{s['runs_total']} attempts passed" if k > 1 else "")
               + f"   tokens: {tokens(s['prompt_tokens'], est)} prompt, {tokens(s['completion_tokens'], est)} completion"
               + f"   time: {duration(s['seconds'])}")
    if est:
        out.append("~ estimated: the server sent no usage for some model calls (about 4 characters per token)")
    return "\n".join(out)
