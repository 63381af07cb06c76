import { invalidPart } from '../../providers/shared/content-parts.js';
import { badFormat } from '../../providers/shared/structured-output.js';
import type { Json } from '@modelgate/shared';

const isObject = (value: unknown): value is Json => !!value && typeof value === 'object' && !Array.isArray(value);

/** A Claude image/document source → an OpenAI content part. */
function sourcePart(block: Json): Json | null {
  const source = isObject(block.source) ? block.source : {};
  const url =
    source.type === 'base64'
      ? `data:${String(source.media_type)};base64,${String(source.data)}`
      : source.type === 'url'
        ? String(source.url)
        : '';
  if (!url) return null;
  if (block.type === 'document') return source.type === 'base64' ? { type: 'file', file: { file_data: url } } : null;
  return { type: 'image_url', image_url: { url } };
}

const textOfBlocks = (content: unknown): string =>
  typeof content === 'string'
    ? content
    : Array.isArray(content)
      ? (content as Json[])
          .filter((b) => b?.type === 'text')
          .map((b) => String(b.text ?? ''))
          .join('\n')
      : '';

function userMessages(content: unknown): Json[] {
  if (typeof content === 'string') return [{ role: 'user', content }];
  const toolMessages: Json[] = [];
  const parts: Json[] = [];
  for (const block of Array.isArray(content) ? (content as Json[]) : []) {
    if (!isObject(block)) continue;
    if (block.type === 'text')
      parts.push(
        block.cache_control ? { type: 'text', text: block.text, cache_control: block.cache_control } : { type: 'text', text: block.text },
      );
    else if (block.type === 'image' || block.type === 'document') {
      const part = sourcePart(block);
      if (part) parts.push(part);
    } else if (block.type === 'tool_result') {
      const text = textOfBlocks(block.content);
      toolMessages.push({ role: 'tool', tool_call_id: block.tool_use_id, content: block.is_error ? `Error: ${text}` : text });
    }
  }
  // OpenAI wants tool results right after the assistant turn that called the tools.
  const isPlain = parts.length > 0 && parts.every((p) => p.type === 'text' && !p.cache_control);
  const user = parts.length === 0 ? [] : [{ role: 'user', content: isPlain ? parts.map((p) => p.text).join('\n') : parts }];
  return [...toolMessages, ...user];
}

function assistantMessage(content: unknown): Json {
  if (typeof content === 'string') return { role: 'assistant', content };
  let text = '';
  let reasoning = '';
  let signature = '';
  const toolCalls: Json[] = [];
  for (const block of Array.isArray(content) ? (content as Json[]) : []) {
    if (block?.type === 'text') text += String(block.text ?? '');
    else if (block?.type === 'thinking') {
      reasoning += String(block.thinking ?? '');
      if (typeof block.signature === 'string') signature = block.signature;
    } else if (block?.type === 'tool_use') {
      toolCalls.push({ id: block.id, type: 'function', function: { name: block.name, arguments: JSON.stringify(block.input ?? {}) } });
    }
  }
  const message: Json = { role: 'assistant', content: text === '' && toolCalls.length > 0 ? null : text };
  if (reasoning) message.reasoning_content = reasoning;
  if (signature) message.reasoning_signature = signature;
  if (toolCalls.length > 0) message.tool_calls = toolCalls;
  return message;
}

function systemMessage(system: unknown): Json | null {
  if (typeof system === 'string') return system === '' ? null : { role: 'system', content: system };
  if (!Array.isArray(system) || system.length === 0) return null;
  const blocks = (system as Json[]).filter((b) => b?.type === 'text');
  if (blocks.some((b) => b.cache_control)) return { role: 'system', content: blocks.map((b) => ({ ...b })) };
  return { role: 'system', content: blocks.map((b) => String(b.text ?? '')).join('\n') };
}

function toolChoiceOf(choice: unknown): { tool_choice?: unknown; parallel_tool_calls?: boolean } {
  if (!isObject(choice)) return {};
  const out: { tool_choice?: unknown; parallel_tool_calls?: boolean } = {};
  if (choice.type === 'auto') out.tool_choice = 'auto';
  else if (choice.type === 'any') out.tool_choice = 'required';
  else if (choice.type === 'none') out.tool_choice = 'none';
  else if (choice.type === 'tool') out.tool_choice = { type: 'function', function: { name: choice.name } };
  if (choice.disable_parallel_tool_use === true) out.parallel_tool_calls = false;
  return out;
}

/** thinking.budget_tokens → an OpenAI reasoning_effort. */
export function effortOfBudget(budget: number): string {
  if (budget < 4096) return 'low';
  if (budget < 16384) return 'medium';
  return 'high';
}

const sourceTypes: Record<string, ReadonlySet<string>> = {
  image: new Set(['base64', 'url']),
  document: new Set(['base64', 'url', 'text', 'content']),
};

/** Malformed messages and content blocks are the caller's 400 (in Anthropic's shape), not skipped. */
function checkMessages(messages: unknown): void {
  if (!Array.isArray(messages)) throw invalidPart('messages', 'messages 必须是数组');
  messages.forEach((message: unknown, i) => {
    if (!isObject(message) || (message.role !== 'user' && message.role !== 'assistant'))
      throw invalidPart(`messages[${i}]`, 'role 必须是 user 或 assistant');
    const { content } = message;
    if (typeof content === 'string') return;
    if (!Array.isArray(content)) throw invalidPart(`messages[${i}].content`, 'content 必须是字符串或内容块数组');
    content.forEach((block: unknown, j) => {
      const path = `messages[${i}].content[${j}]`;
      if (!isObject(block) || typeof block.type !== 'string') throw invalidPart(path, '内容块必须是带 type 的对象');
      if (block.type === 'text' && typeof block.text !== 'string') throw invalidPart(path, 'text 必须是字符串');
      const sources = sourceTypes[block.type];
      if (sources) {
        const source = isObject(block.source) ? block.source : null;
        if (!source || typeof source.type !== 'string' || !sources.has(source.type))
          throw invalidPart(path, `${block.type}.source.type 无效`);
        if (source.type === 'base64' && (typeof source.data !== 'string' || typeof source.media_type !== 'string'))
          throw invalidPart(path, 'base64 来源需要 media_type 与 data');
        if (source.type === 'url' && typeof source.url !== 'string') throw invalidPart(path, 'url 来源需要 url');
      }
      if (block.type === 'tool_use' && (typeof block.id !== 'string' || typeof block.name !== 'string'))
        throw invalidPart(path, 'tool_use 需要 id 与 name');
      if (block.type === 'tool_result' && typeof block.tool_use_id !== 'string') throw invalidPart(path, 'tool_result 需要 tool_use_id');
    });
  });
}

/**
 * Structured outputs (`output_config.format`, or `output_format` as the beta named it) → the canonical
 * `response_format`, which OpenAI and Gemini channels honour and Claude channels send back as
 * `output_config` or a tool (shared/structured-output.ts). Anthropic takes `json_schema` only.
 */
function responseFormatOf(body: Json): Json | undefined {
  const isConfig = isObject(body.output_config) && body.output_config.format !== undefined;
  const format = isConfig ? (body.output_config as Json).format : body.output_format;
  if (format === undefined || format === null) return undefined;
  const path = isConfig ? 'output_config.format' : 'output_format';
  if (!isObject(format) || format.type !== 'json_schema') throw badFormat(`${path}.type 只支持 json_schema`);
  if (!isObject(format.schema)) throw badFormat(`${path}.schema 必须是 JSON Schema 对象`);
  return { type: 'json_schema', json_schema: { name: 'response', schema: format.schema } };
}

/** An Anthropic Messages request → the canonical OpenAI chat completion body. */
export function claudeRequestToOpenAi(body: Json): Json {
  checkMessages(body.messages);
  const messages: Json[] = [];
  const system = systemMessage(body.system);
  if (system) messages.push(system);
  for (const message of Array.isArray(body.messages) ? (body.messages as Json[]) : []) {
    if (message?.role === 'assistant') messages.push(assistantMessage(message.content));
    else messages.push(...userMessages(message?.content));
  }
  const out: Json = { model: body.model, messages, stream: body.stream === true };
  if (typeof body.max_tokens === 'number') out.max_tokens = body.max_tokens;
  if (Array.isArray(body.stop_sequences) && body.stop_sequences.length > 0) out.stop = body.stop_sequences;
  for (const key of ['temperature', 'top_p', 'top_k'] as const) if (typeof body[key] === 'number') out[key] = body[key];
  if (out.stream) out.stream_options = { include_usage: true };
  const tools = (Array.isArray(body.tools) ? (body.tools as Json[]) : []).filter((tool) => isObject(tool) && tool.input_schema);
  if (tools.length > 0) {
    out.tools = tools.map((tool) => ({
      type: 'function',
      function: {
        name: tool.name,
        ...(typeof tool.description === 'string' ? { description: tool.description } : {}),
        parameters: tool.input_schema,
      },
    }));
    Object.assign(out, toolChoiceOf(body.tool_choice));
  }
  const thinking = isObject(body.thinking) ? body.thinking : null;
  if (thinking?.type === 'enabled') out.reasoning_effort = effortOfBudget(Number(thinking.budget_tokens ?? 0));
  const responseFormat = responseFormatOf(body);
  if (responseFormat) out.response_format = responseFormat;
  const userId = isObject(body.metadata) ? body.metadata.user_id : undefined;
  if (typeof userId === 'string') out.user = userId;
  return out;
}
