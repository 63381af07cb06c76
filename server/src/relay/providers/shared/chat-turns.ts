import type { Json } from '@modelgate/shared';

/** The text of an OpenAI message content: a string, or its text parts joined by newlines. */
export function messageText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return (content as Json[])
    .filter((part) => part && part.type === 'text' && typeof part.text === 'string')
    .map((part) => part.text as string)
    .join('\n');
}

export interface ChatTurn {
  role: 'user' | 'assistant';
  content: string;
}

/**
 * OpenAI messages → the shape providers that want strictly alternating turns take (Baidu, Hunyuan):
 * every system/developer text joined into `system`; assistant turns stay, every other role (user,
 * tool results) is a user turn; consecutive turns of one role are merged with a newline.
 */
export function alternatingTurns(messages: Json[]): { system: string; turns: ChatTurn[] } {
  const system: string[] = [];
  const turns: ChatTurn[] = [];
  for (const message of messages) {
    const text = messageText(message.content);
    if (message.role === 'system' || message.role === 'developer') {
      if (text) system.push(text);
      continue;
    }
    const role = message.role === 'assistant' ? 'assistant' : 'user';
    const last = turns.at(-1);
    if (last && last.role === role) last.content = last.content && text ? `${last.content}\n${text}` : last.content || text;
    else turns.push({ role, content: text });
  }
  return { system: system.join('\n'), turns };
}
