import type { Usage } from '../../billing/quota.js';
import { completionId } from '../gemini/chat.js';
import type { Json } from '@modelgate/shared';

const textOf = (content: unknown): string => {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return (content as Json[]).map((part) => (part.type === 'text' && typeof part.text === 'string' ? part.text : '')).join('');
};

/**
 * OpenAI messages → PaLM `prompt`: system text → `context`; system messages named `example_user` /
 * `example_assistant` (OpenAI's few-shot convention) → `examples[{input,output}]`; user and
 * assistant turns → `messages[{author:'0'|'1', content}]`.
 */
export function toPalmPrompt(messages: unknown): Json {
  const context: string[] = [];
  const examples: Json[] = [];
  const turns: Json[] = [];
  let pendingInput: string | null = null;
  for (const message of (Array.isArray(messages) ? messages : []) as Json[]) {
    const text = textOf(message.content);
    if (message.role === 'system' || message.role === 'developer') {
      if (message.name === 'example_user') pendingInput = text;
      else if (message.name === 'example_assistant' && pendingInput !== null) {
        examples.push({ input: { content: pendingInput }, output: { content: text } });
        pendingInput = null;
      } else if (text) context.push(text);
    } else if (message.role === 'assistant') {
      turns.push({ author: '1', content: text });
    } else if (text) {
      turns.push({ author: '0', content: text });
    }
  }
  const prompt: Json = { messages: turns };
  if (context.length > 0) prompt.context = context.join('\n');
  if (examples.length > 0) prompt.examples = examples;
  return prompt;
}

const num = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) ? value : undefined);

/** The canonical OpenAI body → a generateMessage body. */
export function toPalmRequest(body: Json): Json {
  const request: Json = {
    prompt: toPalmPrompt(body.messages),
    temperature: num(body.temperature),
    topP: num(body.top_p),
    topK: num(body.top_k),
    candidateCount: num(body.n),
  };
  return Object.fromEntries(Object.entries(request).filter(([, value]) => value !== undefined));
}

/** `{candidates[{author,content}], filters}` → the answer text and finish reason. */
export function readPalmAnswer(json: Json): { text: string; finishReason: 'stop' | 'content_filter' } {
  const candidates = (Array.isArray(json.candidates) ? json.candidates : []) as Json[];
  const first = candidates[0];
  if (!first) return { text: '', finishReason: Array.isArray(json.filters) && json.filters.length > 0 ? 'content_filter' : 'stop' };
  return { text: typeof first.content === 'string' ? first.content : '', finishReason: 'stop' };
}

/** PaLM answer → OpenAI chat.completion. PaLM reports no usage: null (the pipeline counts). */
export function parsePalmResponse(json: Json, model: string): { completion: Json; usage: Usage | null } {
  const { text, finishReason } = readPalmAnswer(json);
  return {
    completion: {
      id: completionId(undefined),
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model,
      choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: finishReason }],
    },
    usage: null,
  };
}
