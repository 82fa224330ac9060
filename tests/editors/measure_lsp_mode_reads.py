"""How many of the server's messages does a stock lsp-mode lose? (run by hand, not a test)

    .venv/bin/python -m tests.editors.measure_lsp_mode_reads [RUNS]

Each run is a real `emacs -nw` with lsp-mode and agent-lsp registered the way lsp-mode's
docs say (a plain `lsp-register-client`, no package): the person asks the agent about a
line, accepts its edit and allows its command, all from lsp-mode's code-action menu, whose
requests are synchronous. Prints, per run, how many messages lsp-mode's io log says it
received and whether the task finished. With `--tee` the server's output is also copied
(tee) on its way to Emacs and the messages sent but never received are counted: those
lsp-mode's read loop dropped. (tee drains the server's pipe itself, so the server's
read gate cannot see Emacs's reads: use --tee only to measure a server without it.)
"""

from __future__ import annotations

import json
import re
import sys
import tempfile
from pathlib import Path

from tests.editors import lsp_mode
from tests.editors.conftest import CALC
from tests.scripted_model import ScriptedModel, reply, tool_call

TEE = """(lsp-register-client
 (make-lsp-client :new-connection (lsp-stdio-connection '("sh" "-c" "agent-lsp serve | tee -a \\"$HOME/sent.log\\""))
                  :activation-fn (lsp-activate-on "python")
                  :server-id 'agent-lsp
                  :add-on? t))
"""


def frames(data: bytes) -> list[dict]:
    out = []
    while True:
        head, sep, rest = data.partition(b"\r\n\r\n")
        if not sep:
            return out
        n = int(re.search(rb"Content-Length: (\d+)", head).group(1))
        out.append(json.loads(rest[:n]))
        data = rest[n:]


def one_run(tmp: Path, tee: bool) -> tuple[int, int, bool]:
    project = tmp / "project"
    project.mkdir()
    (project / "calc.py").write_text(CALC)
    home = tmp / "home"
    model = ScriptedModel().start()
    model.add(
        tool_call("read_file", {"path": "calc.py"}),
        tool_call("edit_file", {"path": "calc.py", "old": "return a - b", "new": "return a + b"}),
        tool_call("bash", {"command": "true"}),
        reply("Done."),
    )
    steps = [{"step": "attach", "servers": ["agent-lsp"]},
             {"step": "cursor", "line": 2, "col": 4},
             {"step": "keys", "keys": "M-x lsp-execute-code-action RET"},
             {"step": "wait_diagnostics", "server": "agent-lsp", "text": "agent edit", "ms": 20000},
             {"step": "keys", "keys": "M-x lsp-execute-code-action RET"},
             {"step": "wait_message", "text": "agent: Done.", "ms": 30000}]
    original = lsp_mode.STOCK_CLIENT
    lsp_mode.STOCK_CLIENT = TEE if tee else original
    try:
        s = lsp_mode.run_lsp_mode(project / "calc.py", {"steps": steps, "pick": [
            "Accept agent edit", "Allow once"]}, home, model.base_url,
            package=False, timeout=60)
    finally:
        lsp_mode.STOCK_CLIENT = original
        model.stop()
    sent = frames((home / "sent.log").read_bytes()) if (home / "sent.log").exists() else None
    received = lsp_mode.io_log(home, "agent-lsp").count("[Trace - ") - lsp_mode.io_log(home, "agent-lsp").count(
        "] Sending ")
    finished = not s.result.get("errors") and not s.result.get("timed_out")
    return (len(sent) if sent is not None else -1), received, finished


def main() -> None:
    tee = "--tee" in sys.argv
    args = [a for a in sys.argv[1:] if a != "--tee"]
    runs = int(args[0]) if args else 5
    hung = 0
    for i in range(runs):
        with tempfile.TemporaryDirectory(prefix="lsp-mode-reads-") as tmp:
            sent, received, finished = one_run(Path(tmp), tee)
        hung += not finished
        lost = f", sent {sent}, lost {sent - received}" if tee else ""
        print(f"run {i + 1}: received {received}{lost}, task {'finished' if finished else 'HUNG'}", flush=True)
    print(f"{hung} of {runs} runs hung")


if __name__ == "__main__":
    main()
