// What the extension sends to the server as its `agentLsp` settings (pure: no vscode import).
//
// The server overlays settings key by key and a key it is not sent keeps its value
// (docs/protocol.md), so empty values are left out rather than sent: an empty
// `baseUrl` means "the server's default / $AGENT_BASE_URL", not "the empty URL".
// The API key comes from SecretStorage and is merged in here, never from settings.json.

/** Keys of the `agentLsp.*` settings that the server understands, with their JSON type. */
export const SERVER_KEYS: Readonly<Record<string, 'string' | 'boolean' | 'number' | 'string[]'>> = {
  baseUrl: 'string',
  model: 'string',
  autoApprove: 'boolean',
  maxSteps: 'number',
  maxTaskTokens: 'number',
  commandTimeout: 'number',
  contextWindow: 'number',
  webTools: 'boolean',
  sandbox: 'string',
  sandboxNetwork: 'boolean',
  sandboxWritable: 'string[]',
};

/**
 * Settings that start a program, send code elsewhere or widen what runs unasked. A value of
 * one of these that VS Code read from the workspace (`.vscode/settings.json`, a
 * `.code-workspace` file) came with the repository: it is sent apart, as
 * `workspaceSettings`, and the server applies it only after its own trust question
 * (package.json also lists them in `restrictedConfigurations` for Restricted Mode). The
 * sandbox keys are among them: before trust the server lets a workspace value only narrow
 * the sandbox (a `read-only`, fewer paths), never turn it off or open the network.
 */
export const RESTRICTED_KEYS: readonly string[] = ['baseUrl', 'autoApprove', 'webTools', 'sandbox', 'sandboxNetwork', 'sandboxWritable'];

/** The part of `WorkspaceConfiguration.inspect()` this client reads. */
export interface Inspected {
  globalValue?: unknown;
  workspaceValue?: unknown;
  workspaceFolderValue?: unknown;
}

/**
 * The person's own values and the repository's, from `inspect()` of each server key: a
 * restricted key's workspace value goes to `workspace` (the server asks before using it)
 * while the person's global value stays in `own`; any other key takes the nearest value.
 */
export function sectionsByScope(inspect: (key: string) => Inspected | undefined): {
  own: Record<string, unknown>;
  workspace: Record<string, unknown>;
} {
  const own: Record<string, unknown> = {};
  const workspace: Record<string, unknown> = {};
  for (const key of Object.keys(SERVER_KEYS)) {
    const i = inspect(key);
    if (!i) continue;
    const fromWorkspace = i.workspaceFolderValue ?? i.workspaceValue;
    if (RESTRICTED_KEYS.includes(key)) {
      if (fromWorkspace !== undefined) workspace[key] = fromWorkspace;
      if (i.globalValue !== undefined) own[key] = i.globalValue;
    } else {
      const value = fromWorkspace ?? i.globalValue;
      if (value !== undefined) own[key] = value;
    }
  }
  return { own, workspace };
}

/** Settings of the extension itself that name the program it starts (the server). */
export const LAUNCH_KEYS: readonly string[] = ['server.command', 'server.python', 'server.importStrategy'];

/**
 * The launch settings whose value comes from the workspace (the repository) and differs
 * from the person's own: each must be confirmed before the extension starts that program.
 * `approved` says whether this exact value was confirmed before.
 */
export function launchValuesToConfirm(
  inspect: (key: string) => Inspected | undefined,
  approved: (key: string, value: unknown) => boolean,
): { key: string; value: unknown; own: unknown }[] {
  const out: { key: string; value: unknown; own: unknown }[] = [];
  for (const key of LAUNCH_KEYS) {
    const i = inspect(key);
    const value = i?.workspaceFolderValue ?? i?.workspaceValue;
    if (value === undefined || JSON.stringify(value) === JSON.stringify(i?.globalValue)) continue;
    if (!approved(key, value)) out.push({ key, value, own: i?.globalValue });
  }
  return out;
}

/** Always sent by this client: the panel shows answers and progress, commands run asynchronously. */
export const CLIENT_FIXED: Readonly<Record<string, unknown>> = {
  showAnswer: false,
  detachCommands: false,
};

export type ServerSettings = Record<string, unknown>;

/**
 * The settings payload for the server: known keys of the `agentLsp` section with a
 * usable value, plus the API key (when set), VS Code's rg and this client's fixed options;
 * the repository's values of restricted keys (sectionsByScope) ride apart as `workspaceSettings`.
 */
export function serverSettings(
  section: Record<string, unknown> | undefined,
  apiKey?: string,
  rgPath?: string,
  workspace?: Record<string, unknown>,
): ServerSettings {
  const out: ServerSettings = typed(section);
  const key = apiKey?.trim();
  if (key) out.apiKey = key;
  if (rgPath) out.rgPath = rgPath; // VS Code's own rg (ripgrep.ts): the bundled server has none
  const fromRepo = typed(workspace);
  if (Object.keys(fromRepo).length) out.workspaceSettings = fromRepo;
  return { ...out, ...CLIENT_FIXED };
}

/** The known keys of `section` with a usable value of their type (strings trimmed). */
function typed(section: Record<string, unknown> | undefined): ServerSettings {
  const out: ServerSettings = {};
  for (const [key, type] of Object.entries(SERVER_KEYS)) {
    const value = section?.[key];
    if (value === undefined || value === null) continue;
    if (type === 'string') {
      if (typeof value !== 'string' || value.trim() === '') continue;
      out[key] = value.trim();
    } else if (type === 'string[]') {
      if (!Array.isArray(value)) continue;
      const items = value.filter((v): v is string => typeof v === 'string' && v.trim() !== '').map((v) => v.trim());
      if (items.length !== value.length) continue; // a list with a non-path in it is sent not at all
      out[key] = items;
    } else if (type === 'number') {
      if (typeof value !== 'number' || !Number.isFinite(value)) continue;
      out[key] = value;
    } else if (typeof value === 'boolean') {
      out[key] = value;
    }
  }
  return out;
}

/**
 * Keys that were sent before and are absent now. The server cannot "unset" a key
 * (a payload that omits it keeps the old value), so the client restarts the server
 * to get back to the defaults.
 */
export function droppedKeys(before: ServerSettings | undefined, after: ServerSettings): string[] {
  if (!before) return [];
  return Object.keys(before).filter((k) => !(k in after));
}

/** A copy safe to write to a log: the key reduced to "(set)". */
export function publicSettings(settings: ServerSettings): ServerSettings {
  return 'apiKey' in settings ? { ...settings, apiKey: '(set)' } : { ...settings };
}

/** Text with every occurrence of the secret replaced, for anything that may reach a log. */
export function redact(text: string, secret: string | undefined): string {
  return secret && secret.length >= 4 ? text.split(secret).join('[redacted]') : text;
}
