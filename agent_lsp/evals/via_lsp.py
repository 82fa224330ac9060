"""`--via lsp`: one eval run through `agent-lsp serve`, driven by an editor-like LSP client.

The client is what an editor is to the server: it starts `agent-lsp serve` on stdio,
initializes with the task's copy as its workspace folder, runs `agentLsp.runTask`,
applies every `workspace/applyEdit` to the files (and says so), and answers Allow to
every command question. So a pass here measures the editor path: the WorkspaceEdits
the server builds, the approvals, the server's settings. It runs as a process of its
own (the runner kills its whole tree at the task's timeout) and writes the command's
result, `{status, answer, steps}`, to `--result`.

Usage: python -m agent_lsp.evals.via_lsp --workspace DIR --max-steps N --result FILE -- PROMPT
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.lsp.client import LanguageClient
from pygls.uris import from_fs_path, to_fs_path

from .. import __version__
from ..agent.workspace.textio import write_text_atomic
from ..server.command_args import RUN_TASK
from ..server.edits import line_starts, units

ENCODING = types.PositionEncodingKind.Utf16.value


def _offset(text: str, starts: list[int], pos: types.Position) -> int:
    """The character offset of an LSP position (UTF-16 units), clamped the way editors clamp."""
    if pos.line >= len(starts):
        return len(text)
    i = starts[pos.line]
    end = starts[pos.line + 1] if pos.line + 1 < len(starts) else len(text)
    counted = 0
    while i < end and counted < pos.character and text[i] not in "\r\n":
        counted += units(text[i], ENCODING)
        i += 1
    return i


def apply_text_edits(text: str, edits: list[Any]) -> str:
    """Apply TextEdits as LSP defines them: every range refers to the text before any edit."""
    starts = line_starts(text)
    spans = [(_offset(text, starts, e.range.start), _offset(text, starts, e.range.end), e.new_text) for e in edits]
    for a, b, new in sorted(spans, key=lambda s: (s[0], s[1]), reverse=True):
        text = text[:a] + new + text[b:]
    return text


def apply_workspace_edit(edit: types.WorkspaceEdit) -> None:
    """Write a WorkspaceEdit to the files, as an editor does when a person accepts it and saves."""
    changes: list[tuple[str, list[Any]]] = []
    for change in edit.document_changes or []:
        if isinstance(change, types.CreateFile):
            path = Path(to_fs_path(change.uri) or "")
            if not path.exists():
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text("", encoding="utf-8")
        elif isinstance(change, types.TextDocumentEdit):
            changes.append((change.text_document.uri, list(change.edits)))
    for uri, edits in (edit.changes or {}).items():
        changes.append((uri, list(edits)))
    for uri, edits in changes:
        path = Path(to_fs_path(uri) or "")
        before = path.read_bytes().decode("utf-8") if path.exists() else ""
        write_text_atomic(path, apply_text_edits(before, edits))


def make_client(log: Any) -> LanguageClient:
    client = LanguageClient("agent-lsp-eval", __version__)

    @client.feature(types.WORKSPACE_APPLY_EDIT)
    def on_apply_edit(params: types.ApplyWorkspaceEditParams) -> types.ApplyWorkspaceEditResult:
        try:
            apply_workspace_edit(params.edit)
        except (OSError, UnicodeDecodeError) as e:
            return types.ApplyWorkspaceEditResult(applied=False, failure_reason=f"{type(e).__name__}: {e}")
        print(f"(edit accepted: {params.label})", file=log, flush=True)
        return types.ApplyWorkspaceEditResult(applied=True)

    @client.feature(types.WINDOW_SHOW_MESSAGE_REQUEST)
    def on_question(params: types.ShowMessageRequestParams) -> types.MessageActionItem | None:
        actions = list(params.actions or [])
        allow = next((a for a in actions if a.title == "Allow"), actions[0] if actions else None)
        lines = (params.message or "").splitlines()
        asked = lines[1] if len(lines) > 1 and lines[0].startswith("agent-lsp wants to") else (lines or [""])[-1]
        print(f"(allowed: {asked})", file=log, flush=True)  # the command line, not the sandbox line after it
        return allow

    @client.feature(types.WINDOW_LOG_MESSAGE)
    def on_log(params: types.LogMessageParams) -> None:
        print(params.message, file=log, flush=True)

    @client.feature(types.WINDOW_SHOW_MESSAGE)
    def on_show(params: types.ShowMessageParams) -> None:
        pass  # the answer arrives as the command's result too

    return client


async def _drain(stream: asyncio.StreamReader | None, log: Any) -> None:
    """Copy the server's stderr to our log: an unread pipe would fill up and stall the server."""
    if stream is None:
        return
    while line := await stream.readline():
        log.write(line.decode("utf-8", "replace"))
        log.flush()


async def drive(workspace: Path, prompt: str, max_steps: int, command_timeout: float | None,
                log: Any = sys.stderr) -> dict[str, Any]:
    client = make_client(log)
    await client.start_io(sys.executable, "-m", "agent_lsp", "serve")
    drain = asyncio.ensure_future(_drain(getattr(client, "_server", None) and client._server.stderr, log))
    options: dict[str, Any] = {"maxSteps": max_steps}
    if command_timeout:
        options["commandTimeout"] = command_timeout
    caps = types.ClientCapabilities(
        workspace=types.WorkspaceClientCapabilities(
            apply_edit=True,
            # change annotations: this client "reviews" (accepts) needsConfirmation edits itself,
            # so the server sends them instead of holding them in its inline review
            workspace_edit=types.WorkspaceEditClientCapabilities(
                document_changes=True, resource_operations=[types.ResourceOperationKind.Create],
                change_annotation_support=types.ChangeAnnotationsSupportOptions(groups_on_label=True)),
            workspace_folders=True,
        ),
        # it answers the command questions (window/showMessageRequest): a client that declares
        # no window capabilities is not asked them (server/reach.py)
        window=types.WindowClientCapabilities(
            show_message=types.ShowMessageRequestClientCapabilities(
                message_action_item=types.ClientShowMessageActionItemOptions(additional_properties_support=False))),
        general=types.GeneralClientCapabilities(position_encodings=[types.PositionEncodingKind.Utf16]),
    )
    uri = from_fs_path(str(workspace)) or ""
    try:
        await client.initialize_async(types.InitializeParams(
            capabilities=caps, root_uri=uri, process_id=None,
            workspace_folders=[types.WorkspaceFolder(uri=uri, name=workspace.name)],
            initialization_options=options))
        client.initialized(types.InitializedParams())
        result = await client.workspace_execute_command_async(
            types.ExecuteCommandParams(command=RUN_TASK, arguments=[{"task": prompt}]))
        await client.shutdown_async(None)
        client.exit(None)
    finally:
        try:
            await asyncio.wait_for(client.stop(), 5)
        except (asyncio.TimeoutError, Exception):
            pass
        drain.cancel()
    data = result if isinstance(result, dict) else getattr(result, "_asdict", lambda: {})()
    return {"status": data.get("status"), "answer": data.get("answer"), "steps": data.get("steps")}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m agent_lsp.evals.via_lsp", description=__doc__.splitlines()[0])
    p.add_argument("--workspace", required=True)
    p.add_argument("--max-steps", type=int, default=50)
    p.add_argument("--timeout", type=float, help="seconds a bash command may run")
    p.add_argument("--result", required=True)
    p.add_argument("prompt")
    args = p.parse_args(argv)
    try:
        result = asyncio.run(drive(Path(args.workspace), args.prompt, args.max_steps, args.timeout))
    except Exception as e:  # the runner reports a crashed row with this line
        print(f"via lsp: {type(e).__name__}: {e}", file=sys.stderr)
        return 1
    Path(args.result).write_text(json.dumps(result), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
