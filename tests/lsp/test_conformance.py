"""JSON-RPC / LSP conformance under hostile input, through the raw client (tests/lsp/rawclient.py).

An `id` that is not a number or a string is an Invalid Request (-32600, id null); after
`shutdown` every request is answered InvalidRequest; nothing the server sends or
writes to stderr carries a traceback; and the server keeps answering throughout.
"""

from __future__ import annotations

import json

import pytest

from tests.lsp.rawclient import RawClient, frame

INVALID_REQUEST = -32600


def traceback_free(client: RawClient) -> None:
    text = json.dumps(client.messages) + client.stderr.decode("utf-8", "replace")
    assert "Traceback" not in text and 'File "' not in text and "traceback" not in text, text[-3000:]


@pytest.fixture
def raw(workspace, model):
    clients: list[RawClient] = []

    def start(**kwargs) -> RawClient:
        c = RawClient(workspace, model.base_url, **kwargs)
        clients.append(c)
        return c

    yield start
    for c in clients:
        c.close()


BAD_IDS = [[1], [], {"a": 1}, {}, True, False, None, 1.5]


@pytest.mark.parametrize("method", ["textDocument/hover", "workspace/executeCommand", "textDocument/codeAction",
                                    "no/suchMethod"])
def test_invalid_ids_are_invalid_requests(raw, method):
    c = raw()
    c.initialize()
    for bad in BAD_IDS:
        c.send({"jsonrpc": "2.0", "id": bad, "method": method, "params": {}})
        ok = c.call("workspace/executeCommand", {"command": "agentLsp.cancel", "arguments": []})
        assert ok.get("result") == {"cancelled": False}, ok  # still answering, in order
    errors = [m for m in c.messages if m.get("id") is None and "error" in m]
    assert len(errors) == len(BAD_IDS), c.messages
    for e in errors:
        assert e["error"]["code"] == INVALID_REQUEST, e
        assert "id must be a number or a string" in e["error"]["message"], e
        assert "data" not in e["error"], e
    traceback_free(c)


def test_malformed_messages_answered_or_dropped_cleanly(raw):
    c = raw()
    c.initialize()
    cases = [
        ({"jsonrpc": "1.0", "id": "v1", "method": "textDocument/hover", "params": {}}, "v1"),
        ({"id": "nov", "method": "textDocument/hover", "params": {}}, "nov"),
        ({"jsonrpc": "2.0", "id": "m5", "method": 5, "params": {}}, "m5"),
        ({"jsonrpc": "2.0", "id": "mnull", "method": None}, "mnull"),
        ([{"jsonrpc": "2.0", "id": "batch", "method": "shutdown"}], None),
        (42, None),
        ("just a string", None),
        ({"jsonrpc": "2.0"}, None),
    ]
    for body, answer_id in cases:
        c.send(body)
        c.call("workspace/executeCommand", {"command": "agentLsp.cancel", "arguments": []})
        if answer_id is not None:
            (resp,) = c.responses_to(answer_id)
            assert resp["error"]["code"] == INVALID_REQUEST, resp
    nulls = [m for m in c.messages if m.get("id") is None and "error" in m]
    assert len(nulls) == 4 and all(m["error"]["code"] == INVALID_REQUEST for m in nulls), nulls
    # not JSON at all, and a notification with a list id: logged in one line, never answered wrongly
    c.send_bytes(frame(b"{not json"))
    c.send({"jsonrpc": "2.0", "id": [2], "result": None})  # a "response" with a bad id
    ok = c.call("workspace/executeCommand", {"command": "agentLsp.cancel", "arguments": []})
    assert ok["result"] == {"cancelled": False}
    traceback_free(c)
    assert c.close() == 0


def test_every_request_after_shutdown_is_invalid_request(raw):
    c = raw()
    c.initialize()
    first = c.call("shutdown")
    assert "error" not in first and first.get("result") is None, first
    later = [
        c.request("workspace/executeCommand", {"command": "agentLsp.runTask", "arguments": [{"task": "x"}]}),
        c.request("shutdown"),
        c.request("textDocument/codeAction", {"textDocument": {"uri": "file:///x.py"},
                                              "range": {"start": {"line": 0, "character": 0},
                                                        "end": {"line": 0, "character": 0}},
                                              "context": {"diagnostics": []}}),
        c.request("no/suchMethod", {}),
    ]
    for msg_id in later:
        resp = c.response(msg_id, timeout=5)
        assert resp["error"]["code"] == INVALID_REQUEST and "shut down" in resp["error"]["message"], resp
    c.notify("exit")
    assert c.proc.wait(5) == 0
    traceback_free(c)


def test_a_broken_frame_costs_one_message_not_the_session(raw):
    c = raw()
    c.initialize()
    c.send_bytes(b"X-Other: 1\r\n\r\n{}")  # no Content-Length: its body is glued to the next header line
    ok = c.call("workspace/executeCommand", {"command": "agentLsp.cancel", "arguments": []})
    assert ok["result"] == {"cancelled": False}
    body = b'{"jsonrpc":"2.0","id":"lower","method":"workspace/executeCommand",' \
           b'"params":{"command":"agentLsp.cancel","arguments":[]}}'
    c.send_bytes(b"content-length: %d\n\n" % len(body) + body)  # lower case, bare newlines
    assert c.response("lower", timeout=10)["result"] == {"cancelled": False}
    traceback_free(c)


@pytest.mark.parametrize("body", [b"{not json", b"\xff\xfe garbage", b"[" * 100_000 + b"]" * 100_000])
def test_a_body_that_is_not_json_gets_a_parse_error(raw, body):
    c = raw()
    c.initialize()
    c.send_bytes(frame(body))
    ok = c.call("workspace/executeCommand", {"command": "agentLsp.cancel", "arguments": []})
    assert ok["result"] == {"cancelled": False}
    errors = [m for m in c.messages if m.get("id") is None and "error" in m]
    assert [e["error"]["code"] for e in errors] == [-32700], c.messages
    shown = [m for m in c.messages if m.get("method") == "window/showMessage"]
    assert not shown, shown  # the editor's slip: logged, no popup
    traceback_free(c)
