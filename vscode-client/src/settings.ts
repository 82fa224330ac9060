// What the extension sends to the server as its `agentLsp` settings (pure: no vscode import).
//
// The server overlays settings key by key and a key it is not sent keeps its value
// (docs/protocol.md), so empty values are left out rather than sent: an empty
// `baseUrl` means "the server's default / $AGENT_BASE_URL", not "the empty URL".
// The API key comes from SecretStorage and is merged in here, never from settings.json.

/** Keys of the `agentLsp.*` settings that the server understands, with their JSON type. */
export const SERVER_KEYS: Readonly<Record<string, 'string' | 'boolean' | 'number'>> = {
  baseUrl: 'string',
  model: 'string',
  autoApprove: 'boolean',
  maxSteps: 'number',
  maxTaskTokens: 'number',
  commandTimeout: 'number',
  contextWindow: 'number',
  webTools: 'boolean',
};

/** Always sent by this client: the panel shows answers and progress, commands run asynchronously. */
export const CLIENT_FIXED: Readonly<Record<string, unknown>> = {
  showAnswer: false,
  detachCommands: false,
};

export type ServerSettings = Record<string, unknown>;

/**
 * The settings payload for the server: known keys of the `agentLsp` section with a
 * usable value, plus the API key (when set), VS Code's rg and this client's fixed options.
 */
export function serverSettings(section: Record<string, unknown> | undefined, apiKey?: string, rgPath?: string): ServerSettings {
  const out: ServerSettings = {};
  for (const [key, type] of Object.entries(SERVER_KEYS)) {
    const value = section?.[key];
    if (value === undefined || value === null) continue;
    if (type === 'string') {
      if (typeof value !== 'string' || value.trim() === '') continue;
      out[key] = value.trim();
    } else if (type === 'number') {
      if (typeof value !== 'number' || !Number.isFinite(value)) continue;
      out[key] = value;
    } else if (typeof value === 'boolean') {
      out[key] = value;
    }
  }
  const key = apiKey?.trim();
  if (key) out.apiKey = key;
  if (rgPath) out.rgPath = rgPath; // VS Code's own rg (ripgrep.ts): the bundled server has none
  return { ...out, ...CLIENT_FIXED };
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
