"""Permission rules: the rules file, and the one function that judges a call by them.

A person asked about every `python3 -m pytest -q` stops reading the questions, so a
yes can be remembered as a *rule*: for this session (in memory) or for the project
(`.agent-lsp/permissions.json`, a file a team reviews and commits):

    {"allow": ["bash(python3 -m pytest*)", "mcp__git__git_status"], "deny": ["bash(rm -rf*)"]}

What a rule covers, how deny rules see through wrappers and flag spellings, what is
asked even under `--yes`, and the rule a question offers are decided in one place,
`agent/cmdline` (its docstrings and docs/protocol.md, "Permission rules"); this module
reads and writes the file and hands the judge its rules.

- The project file's `allow` rules came with `git clone`, so they count only once the
  person trusted the project (subject `permissions` in policy/trust.py); its `deny`
  rules always count.
- A file that does not parse, or whose `deny` is not a list of strings, fails closed:
  its deny rules cannot be honoured, so every gated call is asked (even under `--yes`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from . import trust
from ..workspace.textio import read_json_object, write_text_atomic
from .trust import PROJECT_DIR

if TYPE_CHECKING:
    from ..cmdline.judge import Verdict

PERMISSIONS_NAME = "permissions.json"
SUBJECT = "permissions"

def permissions_path(root: Path) -> Path:
    return Path(root) / PROJECT_DIR / PERMISSIONS_NAME


@dataclass
class ProjectRules:
    allow: list[str] = field(default_factory=list)
    deny: list[str] = field(default_factory=list)
    note: str | None = None  # why the file was not (fully) used
    broken: str | None = None  # why its deny rules cannot be honoured: then every gated call is asked


def read_rules(root: Path | None) -> ProjectRules:
    """The project's rules. A file that cannot be read is a note and no rules, and `broken`:
    the deny rules it may hold cannot be honoured, so the judge asks about every call."""
    if root is None:
        return ProjectRules()
    path = permissions_path(root)
    data, note = read_json_object(path)
    rules = ProjectRules(note=note)
    shown = f"{PROJECT_DIR}/{PERMISSIONS_NAME}"
    if note:
        rules.broken = f"{shown} cannot be read, so its deny rules cannot be honoured and every command is asked"
    for key in ("allow", "deny"):
        value = data.get(key, [])
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            rules.note = f"ignored {key} in {path}: it must be a list of strings"
            if key == "deny":
                rules.broken = f"the deny rules in {shown} are not a list of strings, so every command is asked"
            continue
        setattr(rules, key, [v.strip() for v in value if v.strip()])
    return rules


def trust_subject(rules: ProjectRules) -> dict[str, str]:
    """What trusting the project covers of this file: its allow rules (deny needs no trust)."""
    return {SUBJECT: trust.fingerprint(rules.allow)} if rules.allow else {}


def allow_trusted(root: Path, rules: ProjectRules) -> bool:
    return not rules.allow or trust.is_trusted(root, SUBJECT, trust.fingerprint(rules.allow))


def judge(tool: str, args: dict[str, Any], allow: list[str], deny: list[str], *,
          broken: str | None = None) -> Verdict:
    """What the rules say about one gated call: agent/cmdline's judge, the one place that decides.
    Imported on the first call: `agent-lsp serve` imports this module at start, the judge not yet."""
    from ..cmdline.judge import judge as judge_call

    return judge_call(tool, args, allow, deny, broken=broken)


def bash_pattern(rule: str) -> str | None:
    """`npm test*` for `bash(npm test*)`; None for a tool rule (as agent/cmdline/patterns.bash_body)."""
    rule = rule.strip()
    return rule[5:-1].strip() if rule.startswith("bash(") and rule.endswith(")") else None


def add_project_rules(root: Path, new_rules: list[str]) -> str | None:
    """Append `new_rules` to the project's allow list; keep it trusted when it was (the person wrote them).

    Returns a note for the person when the rules were written but the rest of the file
    is still waiting for trust (so the new rules count only for this session for now).
    """
    path = permissions_path(root)
    data, note = read_json_object(path)
    if note:
        return f"could not add {', '.join(new_rules)} to {path}: {note}"
    before = read_rules(root)
    was_trusted = allow_trusted(root, before)
    allow = data.get("allow") if isinstance(data.get("allow"), list) else []
    allow = list(allow) + [r for r in new_rules if r not in allow]
    data["allow"] = allow
    data.setdefault("deny", [])
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_text_atomic(path, json.dumps(data, indent=2, ensure_ascii=False) + "\n")
    except OSError as e:
        return f"could not write {path}: {e}"
    if was_trusted:
        trust.grant(root, trust_subject(read_rules(root)))
        return None
    return (f"added {', '.join(new_rules)} to {path}, but its other allow rules are not trusted yet, so "
            f"they count for this session only; {trust.how_to_trust(root)}")
