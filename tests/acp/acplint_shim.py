"""A stdio translator between acplint 0.1.0 and an ACP agent, for tests only.

acplint 0.1.0 disagrees with the ACP spec and the official SDK in a few places, so a
correct agent answers most of its prompts with "Invalid params" and its tool-call,
permission and file checks pass without having seen anything. This shim rewrites
exactly those disagreements, in both directions, so the same checks see a real turn:

- acplint sends `session/prompt` with `content`; the spec's field is `prompt`;
- acplint expects `protocolVersion` as the string "1"; the spec's is the integer 1;
- acplint looks for camelCase update kinds (`agentMessageChunk`, `toolCall`,
  `toolCallUpdate`); the spec's are snake_case (`agent_message_chunk`, ...);
- acplint answers a permission request with `{optionId: "allow", optionKind}`; the
  spec's answer is `{outcome: "selected", optionId: <one of the offered ids>}`;
- acplint wants each of session/new's `configOptions` with a `label` (an early draft of
  config options); the spec's field is `name`.

It also offers `fs.readTextFile` / `fs.writeTextFile` in `initialize` (acplint offers
nothing but answers those requests in its file_operations category), so that category
sees the agent read and write through the client.

Usage: python -m tests.acp.acplint_shim AGENT [ARGS...]
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import threading

_CAMEL = re.compile(r"_([a-z])")


def camel(kind: str) -> str:
    return _CAMEL.sub(lambda m: m.group(1).upper(), kind)


def to_agent(msg: dict, pending_permissions: dict) -> dict:
    method, params = msg.get("method"), msg.get("params")
    if method == "session/prompt" and isinstance(params, dict) and "prompt" not in params and "content" in params:
        params["prompt"] = params.pop("content")
    if method == "initialize" and isinstance(params, dict):
        caps = params.setdefault("clientCapabilities", {})
        caps.setdefault("fs", {"readTextFile": True, "writeTextFile": True})
    if "method" not in msg and msg.get("id") in pending_permissions:
        offered = pending_permissions.pop(msg["id"])
        outcome = (msg.get("result") or {}).get("outcome") or {}
        if "outcome" not in outcome:  # acplint's shape: pick the first "allow" option offered
            allow = next((o["optionId"] for o in offered if str(o.get("kind", "")).startswith("allow")), None)
            msg["result"] = {"outcome": {"outcome": "selected", "optionId": allow}}
    return msg


def to_client(msg: dict, pending_permissions: dict) -> dict:
    method, params = msg.get("method"), msg.get("params")
    if method == "session/update" and isinstance(params, dict) and isinstance(params.get("update"), dict):
        update = params["update"]
        update["sessionUpdate"] = camel(str(update.get("sessionUpdate", "")))
    if method == "session/request_permission" and "id" in msg and isinstance(params, dict):
        pending_permissions[msg["id"]] = params.get("options") or []
    result = msg.get("result")
    if "method" not in msg and isinstance(result, dict) and result.get("protocolVersion") == 1:
        result["protocolVersion"] = "1"
    if "method" not in msg and isinstance(result, dict) and isinstance(result.get("configOptions"), list):
        for option in result["configOptions"]:
            if isinstance(option, dict) and "name" in option:
                option.setdefault("label", option["name"])
    return msg


def pump(src, dst, rewrite, pending: dict, lock: threading.Lock) -> None:
    for line in src:
        try:
            msg = json.loads(line)
        except ValueError:
            out = line
        else:
            with lock:
                out = (json.dumps(rewrite(msg, pending)) + "\n").encode() if isinstance(msg, dict) else line
        dst.write(out)
        dst.flush()
    try:
        dst.close()
    except OSError:
        pass


def main(argv: list[str]) -> int:
    agent = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    pending: dict = {}
    lock = threading.Lock()
    up = threading.Thread(target=pump, args=(sys.stdin.buffer, agent.stdin, to_agent, pending, lock), daemon=True)
    up.start()
    pump(agent.stdout, sys.stdout.buffer, to_client, pending, lock)
    return agent.wait()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
