import type { Json } from '@modelgate/shared';

type Block = Json;
export interface ClaudeMessage {
  role: 'user' | 'assistant';
  content: Block[];
}

const dataUrl = /^data:([^;,]+)(?:;[^,]*)?;base64,(.*)$/s;

/** An OpenAI image_url → a Claude image block: data URLs become base64 sources, others url sources. */
export function imageBlockOf(url: string): Block {
  const match = dataUrl.exec(url);
  if (match) return { type: 'image', source: { type: 'base64', media_type: match[1], data: match[2] } };
  return { type: 'image', source: { type: 'url', url } };
}

const withCache = (block: Block, part: Json): Block => (part.cache_control ? { ...block, cache_control: part.cache_control } : block);

/** OpenAI message content (string or parts) → Claude blocks; empty text is dropped (Claude rejects it). */
export function contentBlocksOf(content: unknown): Block[] {
  if (typeof content === 'string') return content === '' ? [] : [{ type: 'text', text: content }];
  if (!Array.isArray(content)) return [];
  const blocks: Block[] = [];
  for (const part of content as Json[]) {
    if (!part || typeof part !== 'object') continue;
    if ((part.type === 'text' || part.type === 'input_text') && typeof part.text === 'string' && part.text !== '') {
      blocks.push(withCache({ type: 'text', text: part.text }, part));
    } else if (part.type === 'image_url') {
      const image = part.image_url as Json | string | undefined;
      const url = typeof image === 'string' ? image : typeof image?.url === 'string' ? image.url : '';
      if (url) blocks.push(withCache(imageBlockOf(url), part));
    } else if (part.type === 'file') {
      const file = part.file as Json | undefined;
      const match = typeof file?.file_data === 'string' ? dataUrl.exec(file.file_data) : null;
      if (match) blocks.push({ type: 'document', source: { type: 'base64', media_type: match[1], data: match[2] } });
    }
  }
  return blocks;
}

const textOf = (content: unknown): string =>
  typeof content === 'string'
    ? content
    : Array.isArray(content)
      ? (content as Json[]).map((part) => (typeof part?.text === 'string' ? part.text : '')).join('')
      : '';

/** Parses tool-call arguments; Claude wants an object, so anything else becomes {}. */
function inputOf(args: unknown): Json {
  if (args && typeof args === 'object' && !Array.isArray(args)) return args as Json;
  if (typeof args !== 'string' || args.trim() === '') return {};
  try {
    const parsed: unknown = JSON.parse(args);
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Json) : {};
  } catch {
    return {};
  }
}

function assistantBlocks(message: Json): Block[] {
  const blocks: Block[] = [];
  if (typeof message.reasoning_content === 'string' && typeof message.reasoning_signature === 'string') {
    blocks.push({ type: 'thinking', thinking: message.reasoning_content, signature: message.reasoning_signature });
  }
  blocks.push(...contentBlocksOf(message.content));
  const calls = Array.isArray(message.tool_calls) ? (message.tool_calls as Json[]) : [];
  for (const call of calls) {
    const fn = (call.function ?? {}) as Json;
    blocks.push({ type: 'tool_use', id: String(call.id ?? ''), name: String(fn.name ?? ''), input: inputOf(fn.arguments) });
  }
  return blocks;
}

function toolResultBlock(message: Json): Block {
  const content = Array.isArray(message.content) ? contentBlocksOf(message.content) : textOf(message.content);
  return { type: 'tool_result', tool_use_id: String(message.tool_call_id ?? ''), content };
}

/**
 * OpenAI messages → Claude `system` + `messages`: every system/developer message becomes a text
 * block of `system`; tool messages become tool_result blocks of a user turn; consecutive messages
 * of the same role are merged into one turn (Claude requires alternating roles).
 */
export function convertMessages(messages: unknown): { system: Block[]; messages: Array<{ role: string; content: Block[] | string }> } {
  const system: Block[] = [];
  const turns: ClaudeMessage[] = [];
  const push = (role: ClaudeMessage['role'], blocks: Block[]) => {
    if (blocks.length === 0) return;
    const last = turns[turns.length - 1];
    if (last && last.role === role) last.content.push(...blocks);
    else turns.push({ role, content: [...blocks] });
  };
  for (const message of Array.isArray(messages) ? (messages as Json[]) : []) {
    if (!message || typeof message !== 'object') continue;
    switch (message.role) {
      case 'system':
      case 'developer':
        system.push(...contentBlocksOf(message.content));
        break;
      case 'assistant':
        push('assistant', assistantBlocks(message));
        break;
      case 'tool':
      case 'function':
        push('user', [toolResultBlock(message)]);
        break;
      default:
        push('user', contentBlocksOf(message.content));
    }
  }
  // Claude wants tool results first in a user turn.
  for (const turn of turns) {
    if (turn.role === 'user') turn.content.sort((a, b) => Number(b.type === 'tool_result') - Number(a.type === 'tool_result'));
  }
  const simplified = turns.map((turn) => {
    const only = turn.content.length === 1 ? turn.content[0] : undefined;
    return only && only.type === 'text' && !only.cache_control ? { role: turn.role, content: only.text as string } : turn;
  });
  return { system, messages: simplified };
}
