// Finding the command that starts `agent-lsp serve` (pure: the file system and
// Python are reached through the `Probe` the caller passes in).
//
// The `agentLsp.server.command` setting wins. Otherwise, with
// `agentLsp.server.importStrategy: useBundled` (the default) the server is the one the
// .vsix carries in bundled/libs, run by the first Python >= 3.11 of: the
// `agentLsp.server.python` setting, the Python extension's interpreter, a `.venv`/`venv`
// of a workspace folder, PATH (python3, python, python3.N), with bundled/libs first on
// PYTHONPATH. With `fromEnvironment` (or a build without bundled/libs) it is an
// agent-lsp installed there: the python setting (`python -m agent_lsp serve`), the
// Python extension's interpreter, a workspace `.venv`/`venv`, `agent-lsp` on PATH; when
// none has it, the bundled server after all.

export interface ServerCommand {
  command: string;
  args: string[];
  /** Where it came from, for the log: "setting agentLsp.server.command", "PATH", ... */
  source: string;
  /** Variables to set for the server (PYTHONPATH for the bundled libs). */
  env?: Record<string, string>;
}

export type ImportStrategy = 'useBundled' | 'fromEnvironment';
export const MIN_PYTHON: readonly [number, number] = [3, 11];

export interface ResolveInput {
  command?: string | string[];
  python?: string;
  /** The Python extension's interpreter for the workspace, if that extension is there. */
  interpreter?: string;
  workspaceFolders: string[];
  envPath: string;
  platform: NodeJS.Platform;
  /** `agentLsp.server.importStrategy`; anything but "fromEnvironment" means useBundled. */
  importStrategy?: string;
  /** The .vsix's bundled/libs folder, when this build has one. */
  bundledLibs?: string;
  /** The PYTHONPATH the server would inherit, kept after the bundled libs. */
  envPythonPath?: string;
}

export interface Probe {
  /** Does this path exist as an executable file? */
  isExecutable(path: string): boolean;
  /** Can this Python import agent_lsp? */
  hasAgentLsp(python: string): Promise<boolean>;
  /** [major, minor] of this Python, or undefined when it does not run. */
  pythonVersion(python: string): Promise<[number, number] | undefined>;
}

export const INSTALL_HINT =
  'Install it with "pip install agent-lsp" (into the Python you use), or set agentLsp.server.command ' +
  '(e.g. ["/path/to/venv/bin/agent-lsp", "serve"]) or agentLsp.server.python, or set ' +
  'agentLsp.server.importStrategy to useBundled (the server this extension carries).';

export const PYTHON_HINT =
  'Install Python 3.11 or newer (https://www.python.org/downloads/, or your package manager, e.g. "sudo apt install python3.12"), ' +
  'then run Agent: Restart Server; or set agentLsp.server.python to a Python 3.11+.';

export class ServerNotFound extends Error {}
/** No Python >= 3.11 to run the bundled server with: the one notification says so and how to fix it. */
export class NoPython extends ServerNotFound {}

/** Split a command line the way a POSIX shell splits words: quotes and backslashes, no expansion. */
export function splitCommandLine(line: string): string[] {
  const words: string[] = [];
  let word = '';
  let inWord = false;
  let quote: '"' | "'" | null = null;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i];
    if (quote === "'") {
      if (ch === "'") quote = null;
      else word += ch;
    } else if (quote === '"') {
      if (ch === '"') quote = null;
      else if (ch === '\\' && i + 1 < line.length && '"\\$`'.includes(line[i + 1])) word += line[++i];
      else word += ch;
    } else if (ch === "'" || ch === '"') {
      quote = ch;
      inWord = true;
    } else if (ch === '\\' && i + 1 < line.length) {
      word += line[++i];
      inWord = true;
    } else if (/\s/.test(ch)) {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
    } else {
      word += ch;
      inWord = true;
    }
  }
  if (quote) throw new Error(`unbalanced ${quote} in: ${line}`);
  if (inWord) words.push(word);
  return words;
}

function isPathLike(name: string): boolean {
  return name.includes('/') || name.includes('\\');
}

function joinPath(dir: string, name: string, platform: NodeJS.Platform): string {
  const sep = platform === 'win32' ? '\\' : '/';
  return dir.endsWith('/') || dir.endsWith('\\') ? dir + name : dir + sep + name;
}

function dirName(path: string): string {
  const i = Math.max(path.lastIndexOf('/'), path.lastIndexOf('\\'));
  return i <= 0 ? (i === 0 ? path.slice(0, 1) : '.') : path.slice(0, i);
}

/** Look a program up like the shell does; a path-like name is only checked. */
export function findExecutable(name: string, envPath: string, platform: NodeJS.Platform, probe: Probe): string | undefined {
  const exts = platform === 'win32' ? ['', '.exe', '.cmd', '.bat'] : [''];
  if (isPathLike(name)) {
    for (const ext of exts) if (probe.isExecutable(name + ext)) return name + ext;
    return undefined;
  }
  const sep = platform === 'win32' ? ';' : ':';
  for (const dir of envPath.split(sep)) {
    if (!dir) continue;
    for (const ext of exts) {
      const candidate = joinPath(dir, name + ext, platform);
      if (probe.isExecutable(candidate)) return candidate;
    }
  }
  return undefined;
}

function normaliseCommand(command: string | string[] | undefined): string[] {
  if (command === undefined || command === null) return [];
  const words = typeof command === 'string' ? splitCommandLine(command) : command.filter((w) => typeof w === 'string');
  return words.length && words[0].trim() ? words : [];
}

function versionText(v: [number, number] | undefined): string {
  return v ? `Python ${v[0]}.${v[1]}` : 'does not run';
}

function recentEnough(v: [number, number] | undefined): v is [number, number] {
  return !!v && (v[0] > MIN_PYTHON[0] || (v[0] === MIN_PYTHON[0] && v[1] >= MIN_PYTHON[1]));
}

/** The Pythons to try for the bundled server, in order, with where each came from. */
function pythonCandidates(input: ResolveInput, probe: Probe): { path: string; from: string }[] {
  const { envPath, platform } = input;
  const out: { path: string; from: string }[] = [];
  const add = (path: string | undefined, from: string) => {
    if (path && !out.some((c) => c.path === path)) out.push({ path, from });
  };
  const interpreter = input.interpreter?.trim();
  if (interpreter) add(findExecutable(interpreter, envPath, platform, probe), "the Python extension's interpreter");
  const bin = platform === 'win32' ? 'Scripts' : 'bin';
  const exe = platform === 'win32' ? 'python.exe' : 'python';
  for (const folder of input.workspaceFolders) {
    for (const venv of ['.venv', 'venv']) {
      const candidate = joinPath(joinPath(joinPath(folder, venv, platform), bin, platform), exe, platform);
      add(findExecutable(candidate, envPath, platform, probe), `the workspace's ${venv}`);
    }
  }
  for (const name of ['python3', 'python', 'python3.14', 'python3.13', 'python3.12', 'python3.11']) {
    add(findExecutable(name, envPath, platform, probe), 'PATH');
  }
  return out;
}

/** `python -P -m agent_lsp serve` with the bundled libs first on PYTHONPATH (-P: the
 * workspace folder, the server's cwd, never shadows them). */
async function bundledServer(input: ResolveInput, probe: Probe, libs: string): Promise<ServerCommand> {
  const { envPath, platform } = input;
  const run = (python: string, from: string): ServerCommand => {
    const sep = platform === 'win32' ? ';' : ':';
    const rest = input.envPythonPath ? sep + input.envPythonPath : '';
    return {
      command: python,
      args: ['-P', '-m', 'agent_lsp', 'serve'],
      source: `the bundled agent-lsp, run by ${from}`,
      // AGENT_LSP_BUNDLED_LIBS: the server takes these off PYTHONPATH again for the agent's commands.
      env: { PYTHONPATH: libs + rest, AGENT_LSP_BUNDLED_LIBS: libs },
    };
  };
  const python = input.python?.trim();
  if (python) {
    const exe = findExecutable(python, envPath, platform, probe);
    if (!exe) throw new NoPython(`agentLsp.server.python: ${python} was not found. ${PYTHON_HINT}`);
    const v = await probe.pythonVersion(exe);
    if (!recentEnough(v)) {
      throw new NoPython(`agentLsp.server.python: ${exe} ${v ? `is ${versionText(v)}` : 'does not run'}; agent-lsp needs Python 3.11 or newer. ${PYTHON_HINT}`);
    }
    return run(exe, `${exe} (setting agentLsp.server.python)`);
  }
  const tried: string[] = [];
  for (const c of pythonCandidates(input, probe)) {
    const v = await probe.pythonVersion(c.path);
    if (recentEnough(v)) return run(c.path, `${c.path} (${c.from}, ${versionText(v)})`);
    tried.push(`${c.path}: ${versionText(v)}`);
  }
  throw new NoPython(
    `No Python 3.11 or newer was found to run the agent-lsp server${tried.length ? ` (tried ${tried.join('; ')})` : ' (none on PATH)'}. ${PYTHON_HINT}`,
  );
}

/** The command to start the server, or a ServerNotFound whose message says how to fix it. */
export async function resolveServerCommand(input: ResolveInput, probe: Probe): Promise<ServerCommand> {
  const configured = normaliseCommand(input.command);
  if (configured.length) return configuredServer(configured, input, probe);
  const libs = input.bundledLibs;
  if (libs && input.importStrategy !== 'fromEnvironment') return bundledServer(input, probe, libs);
  try {
    return await environmentServer(input, probe);
  } catch (e) {
    if (!libs || !(e instanceof ServerNotFound)) throw e;
    const cmd = await bundledServer(input, probe, libs);
    return { ...cmd, source: `${cmd.source}; importStrategy is fromEnvironment but no agent-lsp was found there (${e.message})` };
  }
}

function configuredServer(configured: string[], input: ResolveInput, probe: Probe): ServerCommand {
  const { envPath, platform } = input;
  const exe = findExecutable(configured[0], envPath, platform, probe);
  if (!exe) {
    throw new ServerNotFound(
      `agentLsp.server.command: ${configured[0]} was not found` +
        (isPathLike(configured[0]) ? '.' : ' on PATH.') +
        ' Fix the setting, or empty it to let the extension find agent-lsp.',
    );
  }
  return { command: exe, args: configured.slice(1), source: 'setting agentLsp.server.command' };
}

/** An agent-lsp installed in the person's environment (importStrategy fromEnvironment). */
async function environmentServer(input: ResolveInput, probe: Probe): Promise<ServerCommand> {
  const { envPath, platform } = input;
  const bin = platform === 'win32' ? 'Scripts' : 'bin';
  const python = input.python?.trim();
  if (python) {
    const exe = findExecutable(python, envPath, platform, probe);
    if (!exe) throw new ServerNotFound(`agentLsp.server.python: ${python} was not found. ${INSTALL_HINT}`);
    if (!(await probe.hasAgentLsp(exe))) {
      throw new ServerNotFound(`agent-lsp is not installed in ${exe} (agentLsp.server.python). ${INSTALL_HINT}`);
    }
    return { command: exe, args: ['-m', 'agent_lsp', 'serve'], source: 'setting agentLsp.server.python' };
  }

  const interpreter = input.interpreter?.trim();
  if (interpreter) {
    const script = findExecutable(joinPath(dirName(interpreter), 'agent-lsp', platform), envPath, platform, probe);
    if (script) return { command: script, args: ['serve'], source: `the Python extension's interpreter (${interpreter})` };
    const exe = findExecutable(interpreter, envPath, platform, probe);
    if (exe && (await probe.hasAgentLsp(exe))) {
      return { command: exe, args: ['-m', 'agent_lsp', 'serve'], source: `the Python extension's interpreter (${interpreter})` };
    }
  }

  for (const folder of input.workspaceFolders) {
    for (const venv of ['.venv', 'venv']) {
      const candidate = joinPath(joinPath(joinPath(folder, venv, platform), bin, platform), 'agent-lsp', platform);
      const exe = findExecutable(candidate, envPath, platform, probe);
      if (exe) return { command: exe, args: ['serve'], source: `the workspace's ${venv}` };
    }
  }

  const onPath = findExecutable('agent-lsp', envPath, platform, probe);
  if (onPath) return { command: onPath, args: ['serve'], source: 'PATH' };

  throw new ServerNotFound(`agent-lsp was not found (not on PATH, not in a workspace .venv). ${INSTALL_HINT}`);
}

/** The command as one line for messages and the log. */
export function commandLine(cmd: { command: string; args: string[] }): string {
  const quote = (w: string) => (/^[\w@%+=:,./-]+$/.test(w) ? w : `'${w.replace(/'/g, `'\\''`)}'`);
  return [cmd.command, ...cmd.args].map(quote).join(' ');
}
