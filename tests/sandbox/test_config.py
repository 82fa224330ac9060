"""The sandbox settings: checked for type, any spelling, and a project that can only narrow them."""

from __future__ import annotations

from agent_lsp.agent.sandbox import SandboxConfig, clamp_project, overlay
from agent_lsp.agent.sandbox.envscrub import is_secret_name, scrub_env

USER = SandboxConfig(mode="workspace-write", network=True, writable=("/srv/cache", "/srv/data"), env=("GH_TOKEN",))


def test_defaults():
    c = SandboxConfig()
    assert (c.mode, c.network, c.writable, c.env) == ("workspace-write", False, (), ())


def test_overlay_checks_types_and_spellings():
    c, notes = overlay(SandboxConfig(), {"sandbox": "read-only", "sandbox_network": True,
                                         "SANDBOX-WRITABLE": "/srv/x", "sandboxEnv": ["A"]})
    assert c == SandboxConfig(mode="read-only", network=True, writable=("/srv/x",), env=("A",))
    assert notes == []
    c, notes = overlay(SandboxConfig(), {"sandbox": "none", "sandboxNetwork": "yes", "sandboxWritable": [1]})
    assert c == SandboxConfig()
    assert len(notes) == 3 and all(n.startswith("ignored setting sandbox") for n in notes)


def test_untrusted_project_cannot_widen():
    c, notes = clamp_project(USER, {"sandbox": "off"}, trusted=False)
    assert c == USER and "only narrow" in notes[0]
    c, notes = clamp_project(SandboxConfig(), {"sandboxNetwork": True}, trusted=False)
    assert c.network is False and "network" in notes[0]
    c, notes = clamp_project(USER, {"sandbox_writable": ["/srv/cache/sub", "/home/me", "/srv/datax"]}, trusted=False)
    assert c.writable == ("/srv/cache/sub",) and "/home/me" in notes[0] and "/srv/datax" in notes[0]
    c, notes = clamp_project(USER, {"SandboxEnv": ["GH_TOKEN", "AWS_SECRET_ACCESS_KEY"]}, trusted=False)
    assert c.env == ("GH_TOKEN",) and "AWS_SECRET_ACCESS_KEY" in notes[0]


def test_untrusted_project_can_narrow():
    c, notes = clamp_project(USER, {"sandbox": "read-only", "sandboxNetwork": False, "sandboxWritable": [],
                                    "sandboxEnv": []}, trusted=False)
    assert c == SandboxConfig(mode="read-only", network=False, writable=(), env=())
    assert notes == []
    c, _ = clamp_project(SandboxConfig(mode="off"), {"sandbox": "workspace-write"}, trusted=False)
    assert c.mode == "workspace-write"


def test_trusted_project_sets_freely():
    c, notes = clamp_project(SandboxConfig(), {"sandbox": "off", "sandboxNetwork": True,
                                               "sandboxWritable": ["/x"]}, trusted=True)
    assert c == SandboxConfig(mode="off", network=True, writable=("/x",))


def test_secret_names_and_values():
    for name in ("GH_TOKEN", "GITHUB_TOKEN", "AWS_SECRET_ACCESS_KEY", "AWS_PROFILE", "NPM_TOKEN", "DB_PASSWORD",
                 "STRIPE_SECRET_KEY", "OPENAI_API_KEY", "MY_APIKEY", "SSH_AUTH_SOCK", "HF_TOKEN", "CI_JOB_TOKEN",
                 "SLACK_SIGNING_SECRET", "my_private_key", "GOOGLE_APPLICATION_CREDENTIALS"):
        assert is_secret_name(name), name
    for name in ("PATH", "HOME", "GIT_AUTHOR_NAME", "TOKENIZERS_PARALLELISM", "LANG", "PYTHONPATH", "KEYBOARD",
                 "SECRETARY", "XAUTHORITY"):
        assert not is_secret_name(name), name
    env, dropped = scrub_env({"PATH": "/bin", "X": "ghp_" + "a" * 36, "Y": "sk-" + "b" * 40,
                              "PIP_INDEX_URL": "https://u:pw@example.com/simple", "Z": "AKIAABCDEFGHIJKLMNOP",
                              "W": "prefix-the-key-suffix", "GH_TOKEN": "ghp_" + "c" * 36},
                             allow=["GH_TOKEN"], secret_values=["the-key"])
    assert env == {"PATH": "/bin", "GH_TOKEN": "ghp_" + "c" * 36}
    assert sorted(dropped) == ["PIP_INDEX_URL", "W", "X", "Y", "Z"]


def test_macos_says_plainly_there_is_no_sandbox(monkeypatch, tmp_path):
    import importlib
    import sys

    from agent_lsp.agent.sandbox import start_notes, wrap

    detect_module = importlib.import_module("agent_lsp.agent.sandbox.detect")  # (the package's `detect` is the function)

    monkeypatch.setattr(sys, "platform", "darwin")
    detect_module._detect.cache_clear()
    try:
        (line,) = start_notes(SandboxConfig(), [tmp_path])
        w = wrap("true", tmp_path, SandboxConfig(), [tmp_path], {"PATH": "/bin", "HOME": str(tmp_path)})
    finally:
        monkeypatch.undo()
        detect_module._detect.cache_clear()
    assert line == ("note: no sandbox can start here (agent-lsp has no sandbox for darwin yet, only for Linux); "
                    "commands run unsandboxed and are asked about as the rules say.")
    assert not w.sandboxed and w.argv == ["/bin/bash", "-c", "true"]
    assert w.summary == "Runs unsandboxed: no sandbox can start here"
