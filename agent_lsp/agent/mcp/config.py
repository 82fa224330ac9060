"""Where MCP servers come from, and which of them may start (no MCP SDK import here).

Sources, an earlier name winning over a later one (the person's own choice over the
repository's):

- settings `mcpServers`: the user settings file, initializationOptions / the editor's
  `agentLsp` section, CLI faces; the project settings file only once its privileged keys
  are trusted (policy/project_keys.py);
- `.mcp.json` at the workspace root (`mcpServers` key, Claude Code's format);
- `.vscode/mcp.json` (`servers` key, VS Code's format).

An entry is `{command, args, env}` (stdio) or `{type: "http", url, headers}`, with
`${VAR}` and `${VAR:-default}` expanded from the environment. The two project files
arrive with `git clone`, so each of their entries is a trust subject of its own
(`mcp:<name>`, fingerprinted as written): it starts only once the person said yes to its
command line, and a changed entry is asked about again; so is an entry whose command (or
argument) is a file inside the project whose content changed (policy/repo_programs.py).
The question shows the entry as written: `${VAR}` is expanded only once it may start. `--yes` approves edits and
commands, never this; `agent-lsp trust DIR` does.
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

from ..policy import repo_programs, trust
from ..host import Host
from ..workspace.textio import read_json_object
from ..workspace.visible import visible

MCP_JSON = ".mcp.json"
VSCODE_MCP_JSON = ".vscode/mcp.json"
SUBJECT_PREFIX = "mcp:"
_VAR = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")


@dataclass(frozen=True)
class ServerSpec:
    """One configured server, expanded and checked, with where it came from."""

    name: str
    source: str  # "settings", ".mcp.json" or ".vscode/mcp.json"
    entry: dict[str, Any]  # as written (the trust fingerprint covers exactly this)
    kind: str  # "stdio" | "http"
    command: str = ""
    args: tuple[str, ...] = ()
    env: dict[str, str] = field(default_factory=dict)
    url: str = ""
    headers: dict[str, str] = field(default_factory=dict)
    programs: tuple[tuple[str, str], ...] = ()  # project files the entry runs: (path, content hash)

    @property
    def project(self) -> bool:
        return self.source != "settings"

    @property
    def subject(self) -> str:
        return SUBJECT_PREFIX + self.name

    @property
    def fingerprint(self) -> str:
        value: dict[str, Any] = {"source": self.source, "entry": self.entry}
        if self.programs:
            value["programs"] = dict(self.programs)
        return trust.fingerprint(value)

    def as_written(self) -> str:
        """The entry as the file has it (nothing expanded), for the trust question."""
        if self.kind == "http":
            return json.dumps({k: self.entry[k] for k in ("url", "headers") if k in self.entry}, ensure_ascii=False)
        words = [str(self.entry.get("command", "")), *(str(a) for a in self.entry.get("args") or [])]
        env = self.entry.get("env") or {}
        return shlex.join(words) + (f"  (env {json.dumps(env, ensure_ascii=False)})" if env else "")

    def command_line(self) -> str:
        if self.kind == "http":
            return self.url
        return shlex.join([self.command, *self.args])

    def key(self) -> list[Any]:
        """What must stay the same for a running server to be kept (expanded values included)."""
        return [self.name, self.kind, self.command, list(self.args), self.env, self.url, self.headers]


def expand(value: str, env: Mapping[str, str], missing: list[str]) -> str:
    def one(m: re.Match[str]) -> str:
        name, default = m.group(1), m.group(2)
        if name in env and env[name] != "":
            return env[name]
        if default is not None:
            return default
        missing.append(name)
        return ""

    return _VAR.sub(one, value)


def parse_entry(name: str, source: str, entry: Any, env: Mapping[str, str],
                root: Path | None) -> tuple[ServerSpec | None, str | None]:
    """The spec of one entry, or None and a note saying what is wrong with it."""
    where = f"MCP server {name!r} ({source})"
    if not isinstance(entry, dict):
        return None, f"ignored {where}: an entry must be an object"
    if entry.get("disabled") is True:
        return None, None
    scope = dict(env)
    if root is not None:
        scope.setdefault("workspaceFolder", str(root))
    missing: list[str] = []
    kind = str(entry.get("type") or ("http" if "url" in entry else "stdio"))
    if kind in ("http", "streamable-http", "streamableHttp"):
        url = entry.get("url")
        headers = entry.get("headers") or {}
        if not isinstance(url, str) or not url:
            return None, f"ignored {where}: type http needs a url"
        if not isinstance(headers, dict) or not all(isinstance(v, str) for v in headers.values()):
            return None, f"ignored {where}: headers must map names to strings"
        spec = ServerSpec(name, source, entry, "http", url=expand(url, scope, missing),
                          headers={str(k): expand(v, scope, missing) for k, v in headers.items()})
    elif kind == "stdio":
        command, args, extra = entry.get("command"), entry.get("args") or [], entry.get("env") or {}
        if not isinstance(command, str) or not command.strip():
            return None, f"ignored {where}: it needs a command (or type http and a url)"
        if not isinstance(args, list) or not all(isinstance(a, (str, int, float)) for a in args):
            return None, f"ignored {where}: args must be a list of strings"
        if not isinstance(extra, dict) or not all(isinstance(v, (str, int, float)) for v in extra.values()):
            return None, f"ignored {where}: env must map names to strings"
        spec = ServerSpec(name, source, entry, "stdio", command=expand(command, scope, missing),
                          args=tuple(expand(str(a), scope, missing) for a in args),
                          env={str(k): expand(str(v), scope, missing) for k, v in extra.items()})
    else:
        return None, f"ignored {where}: unsupported type {kind!r} (stdio or http)"
    if source != "settings" and root is not None:
        spec = dataclasses.replace(spec, programs=tuple(sorted(repo_programs.programs(root, entry).items())))
    note = None
    if missing:
        note = f"{where}: {', '.join(sorted(set('${' + m + '}' for m in missing)))} not set; expanded to empty"
    return spec, note


def _entries(value: Any, key: str, path: Path) -> tuple[dict[str, Any], str | None]:
    servers = value.get(key) if isinstance(value, dict) else None
    if servers is None:
        return {}, None
    if not isinstance(servers, dict):
        return {}, f"ignored {path}: {key} must be an object of servers by name"
    return servers, None


def configured(root: Path | None, settings_servers: Mapping[str, Any],
               env: Mapping[str, str] | None = None) -> tuple[list[ServerSpec], list[str]]:
    """Every configured server (trusted or not), in a fixed order by name, and notes for the log."""
    env = os.environ if env is None else env
    found: dict[str, ServerSpec] = {}
    notes: list[str] = []
    sources: list[tuple[str, dict[str, Any]]] = [("settings", dict(settings_servers or {}))]
    if root is not None:
        for rel, key in ((MCP_JSON, "mcpServers"), (VSCODE_MCP_JSON, "servers")):
            path = Path(root) / rel
            value, note = read_json_object(path)
            servers, bad = _entries(value, key, path)
            notes += [n for n in (note, bad) if n]
            sources.append((rel, servers))
    for source, servers in sources:
        for name, entry in servers.items():
            name = str(name)
            if name in found:
                if found[name].source != source:
                    notes.append(f"MCP server {name!r} from {source} is shadowed by the one from {found[name].source}")
                continue
            spec, note = parse_entry(name, source, entry, env, Path(root) if root else None)
            if note:
                notes.append(note)
            if spec is not None:
                found[name] = spec
    return [found[n] for n in sorted(found)], notes


def project_subjects(root: Path) -> dict[str, str]:
    """The trust subjects of the project's MCP files (for `agent-lsp trust DIR`)."""
    specs, _ = configured(root, {})
    return {s.subject: s.fingerprint for s in specs if s.project}


def trust_question(root: Path, specs: list[ServerSpec]) -> str:
    lines = [f"The project {root} wants to start MCP servers (programs that give the agent tools):"]
    for s in specs:
        lines.append(f"  {visible(s.name)} ({s.source}): {visible(s.as_written())}")
        lines += [f"    runs the project's own file {visible(p)} (sha256 {h[:12]})" for p, h in s.programs]
    lines.append("Trust these servers and start them?")
    return "\n".join(lines)


async def runnable(host: Host, root: Path | None, specs: list[ServerSpec],
                   declined: dict[str, str] | None = None) -> tuple[list[ServerSpec], list[str]]:
    """The servers that may start: the person's own, and the project's once trusted (asked once).

    `declined` (subject -> fingerprint) remembers a "no" for the rest of a long-lived face's
    session, so an editor does not ask before every task; a changed entry is asked again.
    """
    notes: list[str] = []
    waiting = [s for s in specs if s.project and not trust.is_trusted(root, s.subject, s.fingerprint)] if root else []
    ask = [s for s in waiting if declined is None or declined.get(s.subject) != s.fingerprint]
    refused: set[str] = {s.name for s in waiting if s not in ask}
    if ask and root is not None:
        if await host.trust_project(root, trust_question(root, ask)):
            trust.grant(root, {s.subject: s.fingerprint for s in ask})
        else:
            refused |= {s.name for s in ask}
            if declined is not None:
                declined.update({s.subject: s.fingerprint for s in ask})
    for s in specs:
        if s.name in refused:
            notes.append(f"MCP server {s.name!r} from {s.source} was not started: the project is not trusted; "
                         + trust.how_to_trust(root))
    return [s for s in specs if s.name not in refused], notes
