import assert from 'node:assert/strict';
import { test } from 'node:test';
import { commandLine, findExecutable, NoPython, Probe, resolveServerCommand, ServerNotFound, splitCommandLine } from '../src/serverCommand';

function fakeProbe(files: string[], pythonsWithAgent: string[] = [], versions: Record<string, [number, number]> = {}): Probe & { asked: string[] } {
  const asked: string[] = [];
  return {
    asked,
    isExecutable: (p) => files.includes(p),
    hasAgentLsp: async (py) => {
      asked.push(py);
      return pythonsWithAgent.includes(py);
    },
    pythonVersion: async (py) => (files.includes(py) ? versions[py] : undefined),
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

// ---------------------------------------------------------------- the bundled server

const bundled = { ...base, bundledLibs: '/ext/bundled/libs' };

test('useBundled (the default): the first Python >= 3.11 runs the bundled server, bundled/libs first on PYTHONPATH', async () => {
  const probe = fakeProbe(['/usr/bin/python3', '/usr/local/bin/python3.12', '/usr/bin/agent-lsp'], ['/usr/bin/python3'], {
    '/usr/bin/python3': [3, 10],
    '/usr/local/bin/python3.12': [3, 12],
  });
  const r = await resolveServerCommand({ ...bundled, envPythonPath: '/mine' }, probe);
  assert.deepEqual([r.command, r.args], ['/usr/local/bin/python3.12', ['-P', '-m', 'agent_lsp', 'serve']]);
  assert.deepEqual(r.env, { PYTHONPATH: '/ext/bundled/libs:/mine', AGENT_LSP_BUNDLED_LIBS: '/ext/bundled/libs' });
  assert.match(r.source, /bundled agent-lsp.*PATH, Python 3\.12/);
  assert.deepEqual(probe.asked, []); // an installed agent-lsp (even on PATH) is not used
});

test('useBundled: the lookup chain is setting, Python extension, workspace .venv, PATH', async () => {
  const all: Record<string, [number, number]> = {
    '/set/python': [3, 13], '/e/bin/python': [3, 11], '/ws/.venv/bin/python': [3, 12], '/usr/bin/python3': [3, 11],
  };
  const files = Object.keys(all);
  const pick = async (input: object, present = files) => (await resolveServerCommand({ ...bundled, ...input }, fakeProbe(present, [], all))).command;
  assert.equal(await pick({ python: '/set/python', interpreter: '/e/bin/python' }), '/set/python');
  assert.equal(await pick({ interpreter: '/e/bin/python' }), '/e/bin/python');
  assert.equal(await pick({}), '/ws/.venv/bin/python');
  assert.equal(await pick({}, ['/usr/bin/python3']), '/usr/bin/python3');
});

test('no Python >= 3.11: a NoPython error that says what was found and how to fix it', async () => {
  const probe = fakeProbe(['/usr/bin/python3'], [], { '/usr/bin/python3': [3, 9] });
  await assert.rejects(resolveServerCommand(bundled, probe), (e: Error) => {
    assert.ok(e instanceof NoPython);
    assert.match(e.message, /No Python 3\.11 or newer/);
    assert.match(e.message, /\/usr\/bin\/python3: Python 3\.9/);
    assert.match(e.message, /python\.org\/downloads/);
    assert.match(e.message, /agentLsp\.server\.python/);
    return true;
  });
  await assert.rejects(resolveServerCommand(bundled, fakeProbe([])), (e: Error) => e instanceof NoPython && /none on PATH/.test(e.message));
  await assert.rejects(
    resolveServerCommand({ ...bundled, python: '/usr/bin/python3' }, probe),
    (e: Error) => e instanceof NoPython && /agentLsp\.server\.python: \/usr\/bin\/python3 is Python 3\.9/.test(e.message),
  );
});

test('fromEnvironment: an installed agent-lsp is used; without one, the bundled server after all', async () => {
  const versions: Record<string, [number, number]> = { '/usr/bin/python3': [3, 11] };
  const installed = fakeProbe(['/usr/bin/python3', '/ws/.venv/bin/agent-lsp'], [], versions);
  const r = await resolveServerCommand({ ...bundled, importStrategy: 'fromEnvironment' }, installed);
  assert.deepEqual([r.command, r.args, r.env], ['/ws/.venv/bin/agent-lsp', ['serve'], undefined]);
  const none = fakeProbe(['/usr/bin/python3'], [], versions);
  const b = await resolveServerCommand({ ...bundled, importStrategy: 'fromEnvironment' }, none);
  assert.deepEqual([b.command, b.args], ['/usr/bin/python3', ['-P', '-m', 'agent_lsp', 'serve']]);
  assert.match(b.source, /importStrategy is fromEnvironment but no agent-lsp was found/);
});

test('the command setting beats the bundled server', async () => {
  const r = await resolveServerCommand({ ...bundled, command: 'agent-lsp serve' }, fakeProbe(['/usr/bin/agent-lsp']));
  assert.deepEqual([r.command, r.env], ['/usr/bin/agent-lsp', undefined]);
});
