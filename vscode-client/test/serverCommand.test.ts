import assert from 'node:assert/strict';
import { test } from 'node:test';
import { commandLine, findExecutable, Probe, resolveServerCommand, ServerNotFound, splitCommandLine } from '../src/serverCommand';

function fakeProbe(files: string[], pythonsWithAgent: string[] = []): Probe & { asked: string[] } {
  const asked: string[] = [];
  return {
    asked,
    isExecutable: (p) => files.includes(p),
    hasAgentLsp: async (py) => {
      asked.push(py);
      return pythonsWithAgent.includes(py);
    },
  };
}

const base = { workspaceFolders: ['/ws'], envPath: '/usr/local/bin:/usr/bin', platform: 'linux' as const };

test('splitCommandLine splits like a shell, without expansion', () => {
  assert.deepEqual(splitCommandLine('agent-lsp serve'), ['agent-lsp', 'serve']);
  assert.deepEqual(splitCommandLine('  "/opt/my env/bin/python"  -m agent_lsp serve '), ['/opt/my env/bin/python', '-m', 'agent_lsp', 'serve']);
  assert.deepEqual(splitCommandLine(`a 'b c' "d \\"e\\"" f\\ g ''`), ['a', 'b c', 'd "e"', 'f g', '']);
  assert.deepEqual(splitCommandLine('$HOME/x'), ['$HOME/x']);
  assert.throws(() => splitCommandLine('a "b'), /unbalanced/);
});

test('the command setting wins, as an array or a string, found on PATH', async () => {
  const probe = fakeProbe(['/usr/bin/python3', '/usr/local/bin/agent-lsp']);
  const a = await resolveServerCommand({ ...base, command: ['python3', '-m', 'agent_lsp', 'serve'], python: '/nope' }, probe);
  assert.deepEqual([a.command, a.args], ['/usr/bin/python3', ['-m', 'agent_lsp', 'serve']]);
  assert.match(a.source, /agentLsp\.server\.command/);
  const b = await resolveServerCommand({ ...base, command: 'agent-lsp serve --log-file "/tmp/a b.log"' }, probe);
  assert.deepEqual([b.command, b.args], ['/usr/local/bin/agent-lsp', ['serve', '--log-file', '/tmp/a b.log']]);
});

test('a command setting that does not exist is an error that names the setting', async () => {
  await assert.rejects(
    resolveServerCommand({ ...base, command: ['/venv/bin/agent-lsp', 'serve'] }, fakeProbe(['/usr/local/bin/agent-lsp'])),
    (e: Error) => e instanceof ServerNotFound && /agentLsp\.server\.command/.test(e.message),
  );
});

test('an empty command setting falls through to the search', async () => {
  const r = await resolveServerCommand({ ...base, command: [] }, fakeProbe(['/usr/bin/agent-lsp']));
  assert.deepEqual([r.command, r.args, r.source], ['/usr/bin/agent-lsp', ['serve'], 'PATH']);
  const s = await resolveServerCommand({ ...base, command: '   ' }, fakeProbe(['/usr/bin/agent-lsp']));
  assert.equal(s.command, '/usr/bin/agent-lsp');
});

test('the python setting runs python -m agent_lsp serve, after checking the module is there', async () => {
  const probe = fakeProbe(['/venv/bin/python'], ['/venv/bin/python']);
  const r = await resolveServerCommand({ ...base, python: '/venv/bin/python' }, probe);
  assert.deepEqual([r.command, r.args], ['/venv/bin/python', ['-m', 'agent_lsp', 'serve']]);
  await assert.rejects(
    resolveServerCommand({ ...base, python: '/venv/bin/python' }, fakeProbe(['/venv/bin/python'], [])),
    /pip install agent-lsp/,
  );
});

test("the Python extension's interpreter: its agent-lsp script, else python -m, else the search goes on", async () => {
  const withScript = await resolveServerCommand(
    { ...base, interpreter: '/e/bin/python' },
    fakeProbe(['/e/bin/python', '/e/bin/agent-lsp', '/usr/bin/agent-lsp']),
  );
  assert.deepEqual([withScript.command, withScript.args], ['/e/bin/agent-lsp', ['serve']]);
  const withModule = await resolveServerCommand({ ...base, interpreter: '/e/bin/python' }, fakeProbe(['/e/bin/python'], ['/e/bin/python']));
  assert.deepEqual([withModule.command, withModule.args], ['/e/bin/python', ['-m', 'agent_lsp', 'serve']]);
  const without = await resolveServerCommand({ ...base, interpreter: '/e/bin/python' }, fakeProbe(['/e/bin/python', '/ws/.venv/bin/agent-lsp']));
  assert.deepEqual([without.command, without.source], ['/ws/.venv/bin/agent-lsp', "the workspace's .venv"]);
});

test('nothing found: the error says how to install it', async () => {
  await assert.rejects(resolveServerCommand(base, fakeProbe([])), (e: Error) => e instanceof ServerNotFound && /pip install agent-lsp/.test(e.message));
});

test('windows: Scripts folders, .exe names and ; in PATH', async () => {
  const probe = fakeProbe(['C:\\tools\\agent-lsp.exe', 'C:\\ws\\.venv\\Scripts\\agent-lsp.exe']);
  assert.equal(findExecutable('agent-lsp', 'C:\\x;C:\\tools', 'win32', probe), 'C:\\tools\\agent-lsp.exe');
  const r = await resolveServerCommand({ workspaceFolders: ['C:\\ws'], envPath: 'C:\\tools', platform: 'win32' }, probe);
  assert.equal(r.command, 'C:\\ws\\.venv\\Scripts\\agent-lsp.exe');
});

test('commandLine quotes what needs it', () => {
  assert.equal(commandLine({ command: '/a b/python', args: ['-m', 'agent_lsp', 'serve'] }), "'/a b/python' -m agent_lsp serve");
});
