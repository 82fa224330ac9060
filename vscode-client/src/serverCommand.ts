// Finding the command that starts `agent-lsp serve` (pure: the file system and
// Python are reached through the `Probe` the caller passes in).
//
// Order: the `agentLsp.server.command` setting; the `agentLsp.server.python`
// setting (`python -m agent_lsp serve`); the Python extension's interpreter when
// agent-lsp is installed in it; a `.venv`/`venv` of a workspace folder; `agent-lsp`
// on PATH.

export interface ServerCommand {
  command: string;
  args: string[];
  /** Where it came from, for the log: "setting agentLsp.server.command", "PATH", ... */
  source: string;
}

export interface ResolveInput {
  command?: string | string[];
  python?: string;
  /** The Python extension's interpreter for the workspace, if that extension is there. */
  interpreter?: string;
  workspaceFolders: string[];
  envPath: string;
  platform: NodeJS.Platform;
}

export interface Probe {
  /** Does this path exist as an executable file? */
  isExecutable(path: string): boolean;
  /** Can this Python import agent_lsp? */
  hasAgentLsp(python: string): Promise<boolean>;
}

export const INSTALL_HINT =
  'Install it with "pip install agent-lsp" (into the Python you use), or set agentLsp.server.command ' +
  '(e.g. ["/path/to/venv/bin/agent-lsp", "serve"]) or agentLsp.server.python.';

export class ServerNotFound extends Error {}

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

/** The command to start the server, or a ServerNotFound whose message says how to fix it. */
export async function resolveServerCommand(input: ResolveInput, probe: Probe): Promise<ServerCommand> {
  const { envPath, platform } = input;
  const bin = platform === 'win32' ? 'Scripts' : 'bin';

  const configured = normaliseCommand(input.command);
  if (configured.length) {
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
