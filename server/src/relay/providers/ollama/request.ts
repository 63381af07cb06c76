import type { ChatCall, UpstreamRequest } from '../types.js';
import { buildOllamaHeaders, buildOllamaUrl } from './api.js';
import type { Json } from '@modelgate/shared';

interface OllamaMessage {
  role: string;
  content: string;
  images?: string[];
  tool_calls?: Array<{ function: { name: string; arguments: unknown } }>;
  tool_name?: string;
}

/** `data:image/png;base64,AAAA` → `AAAA`; remote URLs cannot be inlined by a pure converter. */
const base64Of = (url: string): string | null => {
  const match = /^data:[^;,]*;base64,(.*)$/s.exec(url);
  return match ? match[1]! : null;
};

function parseArguments(raw: unknown): unknown {
  if (typeof raw !== 'string') return raw ?? {};
  try {
    return JSON.parse(raw);
  } catch {
    return {};
  }
}

function toOllamaMessage(message: Json, toolNames: Map<string, string>): OllamaMessage {
  const role = typeof message.role === 'string' ? (message.role === 'developer' ? 'system' : message.role) : 'user';
  const out: OllamaMessage = { role, content: '' };
  if (typeof message.content === 'string') out.content = message.content;
  else if (Array.isArray(message.content)) {
    const texts: string[] = [];
    const images: string[] = [];
    for (const part of message.content as Json[]) {
      if (part.type === 'text' && typeof part.text === 'string') texts.push(part.text);
      if (part.type === 'image_url') {
        const image = part.image_url as { url?: string } | string | undefined;
        const url = typeof image === 'string' ? image : (image?.url ?? '');
        const data = base64Of(url);
        if (data) images.push(data);
      }
    }
    out.content = texts.join('\n');
    if (images.length > 0) out.images = images;
  }
  const calls = message.tool_calls as Array<{ id?: string; function?: { name?: string; arguments?: unknown } }> | undefined;
  if (Array.isArray(calls) && calls.length > 0) {
    out.tool_calls = calls.map((call) => {
      const name = call.function?.name ?? '';
      if (call.id) toolNames.set(call.id, name);
      return { function: { name, arguments: parseArguments(call.function?.arguments) } };
    });
  }
  if (role === 'tool' && typeof message.tool_call_id === 'string') {
    const name = toolNames.get(message.tool_call_id);
    if (name) out.tool_name = name;
  }
  return out;
}

/** OpenAI sampling fields → Ollama `options`. */
export function toOllamaOptions(body: Json): Json {
  const options: Json = {};
  const copy = (from: string, to: string) => {
    if (body[from] !== undefined && body[from] !== null) options[to] = body[from];
  };
  copy('temperature', 'temperature');
  copy('top_p', 'top_p');
  copy('top_k', 'top_k');
  copy('seed', 'seed');
  copy('frequency_penalty', 'frequency_penalty');
  copy('presence_penalty', 'presence_penalty');
  copy('max_tokens', 'num_predict');
  copy('max_completion_tokens', 'num_predict');
  if (typeof body.stop === 'string') options.stop = [body.stop];
  else if (Array.isArray(body.stop)) options.stop = body.stop;
  return options;
}

function formatOf(body: Json): unknown {
  const format = body.response_format as { type?: string; json_schema?: { schema?: unknown } } | undefined;
  if (format?.type === 'json_object') return 'json';
  if (format?.type === 'json_schema' && format.json_schema?.schema) return format.json_schema.schema;
  return undefined;
}

/** OpenAI chat body → `POST {base}/api/chat`. */
export function buildOllamaChatRequest(body: Json, call: ChatCall): UpstreamRequest {
  const toolNames = new Map<string, string>();
  const messages = Array.isArray(body.messages) ? (body.messages as Json[]).map((message) => toOllamaMessage(message, toolNames)) : [];
  const out: Json = { model: call.upstreamModel, messages, stream: call.isStream };
  const options = toOllamaOptions(body);
  if (Object.keys(options).length > 0) out.options = options;
  if (Array.isArray(body.tools) && body.tools.length > 0) out.tools = body.tools;
  const format = formatOf(body);
  if (format !== undefined) out.format = format;
  if (typeof body.reasoning_effort === 'string') out.think = body.reasoning_effort !== 'none';
  return { url: buildOllamaUrl('chat', call.target, call.upstreamModel), headers: buildOllamaHeaders(call.target), body: out };
}

/** OpenAI completions body → `POST {base}/api/generate` (raw prompt; no template applied). */
export function buildOllamaGenerateRequest(body: Json, call: ChatCall): UpstreamRequest {
  const prompt = Array.isArray(body.prompt) ? (body.prompt as unknown[]).join('\n') : String(body.prompt ?? '');
  const out: Json = { model: call.upstreamModel, prompt, stream: call.isStream };
  if (typeof body.suffix === 'string') out.suffix = body.suffix;
  const options = toOllamaOptions(body);
  if (Object.keys(options).length > 0) out.options = options;
  return { url: buildOllamaUrl('completions', call.target, call.upstreamModel), headers: buildOllamaHeaders(call.target), body: out };
}

/** OpenAI embeddings body → `POST {base}/api/embed` `{model, input}`. */
export function buildOllamaEmbedRequest(body: Json, call: ChatCall): UpstreamRequest {
  const out: Json = { model: call.upstreamModel, input: body.input };
  if (typeof body.dimensions === 'number') out.dimensions = body.dimensions;
  return { url: buildOllamaUrl('embeddings', call.target, call.upstreamModel), headers: buildOllamaHeaders(call.target), body: out };
}
