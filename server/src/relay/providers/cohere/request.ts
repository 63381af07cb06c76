import type { ChatCall, UpstreamRequest } from '../types.js';
import { buildCohereHeaders, buildCohereUrl } from './api.js';
import type { Json } from '@modelgate/shared';

/** Text of an OpenAI message content (string or parts; non-text parts are dropped). */
export function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return (content as Json[])
    .filter((part) => part.type === 'text' && typeof part.text === 'string')
    .map((part) => part.text as string)
    .join('\n');
}

const cohereRole: Record<string, string> = { user: 'USER', assistant: 'CHATBOT', system: 'SYSTEM', developer: 'SYSTEM' };

/** OpenAI function tools → Cohere v1 `parameter_definitions` (top-level JSON-schema properties). */
function toCohereTools(tools: unknown): Json[] | undefined {
  if (!Array.isArray(tools) || tools.length === 0) return undefined;
  return (tools as Json[])
    .filter((tool) => tool.type === 'function')
    .map((tool) => {
      const fn = tool.function as {
        name?: string;
        description?: string;
        parameters?: { properties?: Record<string, Json>; required?: string[] };
      };
      const required = new Set(fn.parameters?.required ?? []);
      const definitions: Json = {};
      for (const [name, schema] of Object.entries(fn.parameters?.properties ?? {})) {
        definitions[name] = { type: schema.type ?? 'str', description: schema.description ?? '', required: required.has(name) };
      }
      return { name: fn.name ?? '', description: fn.description ?? '', parameter_definitions: definitions };
    });
}

function parseArguments(raw: unknown): Json {
  try {
    return typeof raw === 'string' ? (JSON.parse(raw) as Json) : ((raw as Json) ?? {});
  } catch {
    return {};
  }
}

/**
 * OpenAI chat body → Cohere v1 `/v1/chat`: system messages → `preamble`; the last user message →
 * `message`; earlier turns → `chat_history`; trailing `tool` messages → `tool_results`.
 */
export function buildCohereChatRequest(body: Json, call: ChatCall): UpstreamRequest {
  const messages = Array.isArray(body.messages) ? (body.messages as Json[]) : [];
  const preamble = messages
    .filter((m) => m.role === 'system' || m.role === 'developer')
    .map((m) => textOf(m.content))
    .join('\n');
  const turns = messages.filter((m) => m.role !== 'system' && m.role !== 'developer');
  const calls = new Map<string, { name: string; parameters: Json }>();
  for (const turn of turns) {
    for (const toolCall of (turn.tool_calls as Array<{ id?: string; function?: { name?: string; arguments?: unknown } }> | undefined) ??
      []) {
      if (toolCall.id)
        calls.set(toolCall.id, { name: toolCall.function?.name ?? '', parameters: parseArguments(toolCall.function?.arguments) });
    }
  }
  let end = turns.length;
  const toolResults: Json[] = [];
  while (end > 0 && turns[end - 1]!.role === 'tool') {
    const result = turns[end - 1]!;
    const origin = calls.get(String(result.tool_call_id ?? '')) ?? { name: '', parameters: {} };
    toolResults.unshift({ call: origin, outputs: [{ result: textOf(result.content) }] });
    end -= 1;
  }
  let message = '';
  if (toolResults.length === 0) {
    const lastUser = turns.map((turn) => turn.role).lastIndexOf('user');
    if (lastUser >= 0) {
      message = textOf(turns[lastUser]!.content);
      turns.splice(lastUser, 1);
      end = turns.length;
    }
  }
  const chatHistory = turns
    .slice(0, end)
    .filter((turn) => turn.role !== 'tool')
    .map((turn) => ({
      role: cohereRole[String(turn.role)] ?? 'USER',
      message: textOf(turn.content),
    }));
  const out: Json = { model: call.upstreamModel, message, stream: call.isStream };
  if (chatHistory.length > 0) out.chat_history = chatHistory;
  if (preamble) out.preamble = preamble;
  const maxTokens = body.max_tokens ?? body.max_completion_tokens;
  if (maxTokens !== undefined) out.max_tokens = maxTokens;
  if (typeof body.stop === 'string') out.stop_sequences = [body.stop];
  else if (Array.isArray(body.stop)) out.stop_sequences = body.stop;
  for (const [from, to] of [
    ['temperature', 'temperature'],
    ['top_p', 'p'],
    ['top_k', 'k'],
    ['seed', 'seed'],
    ['frequency_penalty', 'frequency_penalty'],
    ['presence_penalty', 'presence_penalty'],
  ] as const) {
    if (body[from] !== undefined && body[from] !== null) out[to] = body[from];
  }
  const tools = toCohereTools(body.tools);
  if (tools) out.tools = tools;
  if (toolResults.length > 0) out.tool_results = toolResults;
  return { url: buildCohereUrl('chat', call.target, call.upstreamModel), headers: buildCohereHeaders(call.target), body: out };
}
