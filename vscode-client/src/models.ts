// Agent: Select Model: the endpoint's `GET /v1/models`, as a quick pick (pure parts here,
// unit-tested; the quick pick itself is in extension.ts).

export interface ModelList {
  ids: string[];
  /** Why there is no list: the endpoint does not offer one, refused, or is unreachable. */
  error?: string;
}

/** The model ids of an OpenAI-style `{data: [{id}]}` answer (Ollama and llama.cpp answer
 * the same way), sorted; undefined when the body is something else. */
export function modelIds(body: unknown): string[] | undefined {
  const data = (body as { data?: unknown })?.data;
  if (!Array.isArray(data)) return undefined;
  const ids = data
    .map((m) => (m && typeof m === 'object' ? (m as { id?: unknown }).id : undefined))
    .filter((id): id is string => typeof id === 'string' && id.trim() !== '');
  return [...new Set(ids)].sort((a, b) => a.localeCompare(b));
}

/** `<baseUrl>/models`, without a doubled slash. */
export function modelsUrl(baseUrl: string): string {
  return baseUrl.replace(/\/+$/, '') + '/models';
}

/** Ask the endpoint for its models; never throws (an error is part of the answer). */
export async function listModels(baseUrl: string, apiKey: string | undefined, timeoutMs = 10_000): Promise<ModelList> {
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (apiKey) headers.Authorization = `Bearer ${apiKey}`;
  try {
    const res = await fetch(modelsUrl(baseUrl), { headers, signal: AbortSignal.timeout(timeoutMs) });
    if (!res.ok) return { ids: [], error: `HTTP ${res.status} from ${modelsUrl(baseUrl)}` };
    const ids = modelIds(await res.json());
    if (!ids) return { ids: [], error: `${modelsUrl(baseUrl)} did not answer with a model list` };
    if (!ids.length) return { ids: [], error: `${modelsUrl(baseUrl)} lists no models` };
    return { ids };
  } catch (e) {
    const reason = e instanceof Error ? (e.name === 'TimeoutError' ? 'no answer in time' : e.message) : String(e);
    return { ids: [], error: `cannot reach ${modelsUrl(baseUrl)}: ${reason}` };
  }
}

/** The endpoints the walkthrough offers: each fills agentLsp.baseUrl and agentLsp.model. */
export const ENDPOINTS: readonly { label: string; detail: string; baseUrl: string; model: string; needsKey: boolean }[] = [
  { label: 'OpenAI', detail: 'api.openai.com: needs an API key', baseUrl: 'https://api.openai.com/v1', model: 'gpt-4o-mini', needsKey: true },
  { label: 'Ollama', detail: 'ollama serve on this machine (ollama pull qwen2.5-coder:7b)', baseUrl: 'http://localhost:11434/v1', model: 'qwen2.5-coder:7b', needsKey: false },
  { label: 'llama.cpp', detail: 'llama-server -m model.gguf --jinja --port 8080', baseUrl: 'http://localhost:8080/v1', model: 'local', needsKey: false },
];
