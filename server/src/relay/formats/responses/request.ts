import { invalidPart } from '../../providers/shared/content-parts.js';
import type { Json } from '@modelgate/shared';

/** Responses content parts → OpenAI chat content (a string when it is text only). */
function toChatContent(content: unknown): string | Json[] {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  const parts: Json[] = [];
  for (const part of content as Json[]) {
    if ((part.type === 'input_text' || part.type === 'output_text' || part.type === 'text') && typeof part.text === 'string') {
      parts.push({ type: 'text', text: part.text });
    } else if (part.type === 'input_image' && typeof part.image_url === 'string') {
      parts.push({
        type: 'image_url',
        image_url: { url: part.image_url, ...(typeof part.detail === 'string' ? { detail: part.detail } : {}) },
      });
    }
  }
  return parts.every((part) => part.type === 'text') ? parts.map((part) => part.text as string).join('') : parts;
}

/** Responses `input` (string or items) → OpenAI chat messages. */
export function toChatMessages(input: unknown): Json[] {
  if (typeof input === 'string') return [{ role: 'user', content: input }];
  if (!Array.isArray(input)) return [];
  const messages: Json[] = [];
  for (const item of input as Json[]) {
    if (!item || typeof item !== 'object') continue;
    const type = item.type ?? (item.role ? 'message' : undefined);
    if (type === 'message') {
      const role = item.role === 'developer' ? 'system' : String(item.role ?? 'user');
      messages.push({ role, content: toChatContent(item.content) });
    } else if (type === 'function_call') {
      const call = {
        id: item.call_id,
        type: 'function',
        function: {
          name: item.name,
          arguments: typeof item.arguments === 'string' ? item.arguments : JSON.stringify(item.arguments ?? {}),
        },
      };
      const last = messages[messages.length - 1];
      // Parallel calls arrive as consecutive items; they belong to one assistant turn.
      if (last && last.role === 'assistant' && Array.isArray(last.tool_calls)) (last.tool_calls as Json[]).push(call);
      else messages.push({ role: 'assistant', content: null, tool_calls: [call] });
    } else if (type === 'function_call_output') {
      const output = typeof item.output === 'string' ? item.output : JSON.stringify(item.output ?? '');
      messages.push({ role: 'tool', tool_call_id: item.call_id, content: output });
    }
    // reasoning and built-in tool items have no chat equivalent and are dropped.
  }
  return messages;
}

function toChatToolChoice(choice: unknown): unknown {
  if (typeof choice === 'string') return choice;
  if (choice && typeof choice === 'object' && (choice as Json).type === 'function')
    return { type: 'function', function: { name: (choice as Json).name } };
  return undefined;
}

function toResponseFormat(text: unknown): Json | undefined {
  const format = (text as { format?: Json } | undefined)?.format;
  if (!format) return undefined;
  if (format.type === 'json_object') return { type: 'json_object' };
  if (format.type === 'json_schema') {
    return {
      type: 'json_schema',
      json_schema: {
        name: format.name ?? 'response',
        schema: format.schema,
        ...(format.strict !== undefined ? { strict: format.strict } : {}),
      },
    };
  }
  return undefined;
}

const isObject = (value: unknown): value is Json => !!value && typeof value === 'object' && !Array.isArray(value);

/** Malformed input items and content parts are the caller's 400, not skipped. */
function checkInput(input: unknown): void {
  if (input === undefined || typeof input === 'string') return;
  if (!Array.isArray(input)) throw invalidPart('input', 'input 必须是字符串或数组');
  input.forEach((item: unknown, i) => {
    if (!isObject(item)) throw invalidPart(`input[${i}]`, '输入项必须是对象');
    if (!Array.isArray(item.content)) return;
    item.content.forEach((part: unknown, j) => {
      const path = `input[${i}].content[${j}]`;
      if (!isObject(part) || typeof part.type !== 'string') throw invalidPart(path, '内容片段必须是带 type 的对象');
      if ((part.type === 'input_text' || part.type === 'output_text') && typeof part.text !== 'string')
        throw invalidPart(path, 'text 必须是字符串');
      if (part.type === 'input_image' && typeof part.image_url !== 'string' && typeof part.file_id !== 'string')
        throw invalidPart(path, 'input_image 需要 image_url 或 file_id');
    });
  });
}

/** Tools must be objects with a type, and function tools need a name: else the caller's 400. */
function checkTools(tools: unknown): void {
  if (tools === undefined || tools === null) return;
  if (!Array.isArray(tools)) throw invalidPart('tools', 'tools 必须是数组');
  tools.forEach((tool: unknown, i) => {
    if (!isObject(tool) || typeof tool.type !== 'string') throw invalidPart(`tools[${i}]`, '工具必须是带 type 的对象');
    if (tool.type === 'function' && (typeof tool.name !== 'string' || tool.name === ''))
      throw invalidPart(`tools[${i}]`, 'function 工具需要 name');
  });
}

/** Responses request → canonical OpenAI chat completion body. */
export function responsesToChat(body: Json): Json {
  checkInput(body.input);
  checkTools(body.tools);
  const messages = toChatMessages(body.input);
  if (typeof body.instructions === 'string' && body.instructions) messages.unshift({ role: 'system', content: body.instructions });
  const out: Json = { model: body.model, messages, stream: body.stream === true };
  if (body.stream === true) out.stream_options = { include_usage: true };
  if (typeof body.max_output_tokens === 'number') out.max_tokens = body.max_output_tokens;
  for (const key of ['temperature', 'top_p', 'parallel_tool_calls'] as const)
    if (body[key] !== undefined && body[key] !== null) out[key] = body[key];
  const effort = (body.reasoning as { effort?: unknown } | undefined)?.effort;
  if (typeof effort === 'string') out.reasoning_effort = effort;
  if (Array.isArray(body.tools)) {
    const tools = (body.tools as Json[])
      .filter((tool) => tool.type === 'function')
      .map((tool) => ({
        type: 'function',
        function: {
          name: tool.name,
          ...(tool.description !== undefined ? { description: tool.description } : {}),
          parameters: tool.parameters ?? { type: 'object', properties: {} },
          ...(tool.strict !== undefined && tool.strict !== null ? { strict: tool.strict } : {}),
        },
      }));
    if (tools.length > 0) out.tools = tools;
  }
  const toolChoice = toChatToolChoice(body.tool_choice);
  if (toolChoice !== undefined && out.tools) out.tool_choice = toolChoice;
  const format = toResponseFormat(body.text);
  if (format) out.response_format = format;
  const user = body.safety_identifier ?? body.user;
  if (typeof user === 'string') out.user = user;
  return out;
}
