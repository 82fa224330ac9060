"""`python -m tests.acp_clients.tap LOG CMD [ARGS...]`: run an ACP agent and record its traffic.

A client that starts an agent by command (Toad, acpc) starts this instead; it relays
stdin to CMD and CMD's stdout back unchanged, line by line, and appends every line to
LOG as JSON `{"from": "client"|"agent", "line": ...}`, so a test can check each message
the agent sent (against the SDK's schema) and each answer the client gave (a client that
rejects an update answers it with an error). CMD's stderr goes to LOG + ".stderr".
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading


def main(argv: list[str]) -> int:
    if len(argv) < 2:
        print("usage: python -m tests.acp_clients.tap LOG CMD [ARGS...]", file=sys.stderr)
        return 2
    log_path, cmd = argv[0], argv[1:]
    lock = threading.Lock()
    log = open(log_path, "a", encoding="utf-8")  # noqa: SIM115 - open for the process's life

    def record(who: str, line: bytes) -> None:
        with lock:
            log.write(json.dumps({"from": who, "line": line.decode("utf-8", "replace").rstrip("\n")}) + "\n")
            log.flush()

    with open(log_path + ".stderr", "ab") as err:
        proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=err)
    assert proc.stdin is not None and proc.stdout is not None

    def to_agent() -> None:
        for line in sys.stdin.buffer:
            record("client", line)
            try:
                proc.stdin.write(line)
                proc.stdin.flush()
            except OSError:
                break
        try:
            proc.stdin.close()
        except OSError:
            pass

    threading.Thread(target=to_agent, daemon=True).start()
    for line in proc.stdout:
        record("agent", line)
        sys.stdout.buffer.write(line)
        sys.stdout.buffer.flush()
    return proc.wait()


def read(log_path: str) -> list[tuple[str, dict]]:
    """The recorded messages in order: (who, message); lines that are not JSON are skipped."""
    out: list[tuple[str, dict]] = []
    try:
        text = open(log_path, encoding="utf-8").read()
    except OSError:
        return out
    for row in text.splitlines():
        try:
            rec = json.loads(row)
            msg = json.loads(rec["line"])
        except (ValueError, KeyError):
            continue
        if isinstance(msg, dict):
            out.append((rec["from"], msg))
    return out


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
