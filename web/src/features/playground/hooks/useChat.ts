import { useCallback, useEffect, useReducer, useRef } from 'react';
import { streamChat, type ChatRequest, type ChatTurn } from '../api/stream-chat';

export type MessageStatus = 'loading' | 'incomplete' | 'complete' | 'error';

export interface ChatMessage {
  id: number;
  role: 'user' | 'assistant';
  content: string;
  status: MessageStatus;
}

type Action =
  | { type: 'send'; user: ChatMessage; reply: ChatMessage }
  | { type: 'delta'; id: number; text: string }
  | { type: 'done'; id: number }
  | { type: 'error'; id: number; message: string }
  | { type: 'reset'; messages: ChatMessage[] };

const isFinal = (message: ChatMessage) => message.status === 'complete' || message.status === 'error';

/** A message's states: loading → incomplete while streaming → complete or error; a final message never changes. */
function reduce(messages: ChatMessage[], action: Action): ChatMessage[] {
  if (action.type === 'reset') return action.messages;
  if (action.type === 'send') return [...messages, action.user, action.reply];
  return messages.map((message) => {
    if (message.id !== action.id || isFinal(message)) return message;
    if (action.type === 'delta') return { ...message, content: message.content + action.text, status: 'incomplete' };
    if (action.type === 'done') return { ...message, status: 'complete' };
    return { ...message, content: action.message, status: 'error' };
  });
}

export interface ChatSettings {
  model: string;
  group: string;
  temperature: number;
  maxTokens: number;
  systemPrompt: string;
}

let nextId = 1;
const newId = () => nextId++;

/** The playground conversation and its streaming send. */
export function useChat() {
  const [messages, dispatch] = useReducer(reduce, []);
  const latest = useRef(messages);
  useEffect(() => {
    latest.current = messages;
  }, [messages]);
  const controller = useRef<AbortController | null>(null);

  const send = useCallback(async (text: string, settings: ChatSettings) => {
    const history: ChatTurn[] = latest.current
      .filter((message) => message.status === 'complete')
      .map(({ role, content }) => ({ role, content }));
    const system: ChatTurn[] = settings.systemPrompt.trim() ? [{ role: 'system', content: settings.systemPrompt }] : [];
    const user: ChatMessage = { id: newId(), role: 'user', content: text, status: 'complete' };
    const reply: ChatMessage = { id: newId(), role: 'assistant', content: '', status: 'loading' };
    dispatch({ type: 'send', user, reply });
    const request: ChatRequest = {
      messages: [...system, ...history, { role: 'user', content: text }],
      model: settings.model,
      group: settings.group,
      temperature: settings.temperature,
      max_tokens: settings.maxTokens,
    };
    controller.current = new AbortController();
    await streamChat(
      request,
      {
        onDelta: (delta) => dispatch({ type: 'delta', id: reply.id, text: delta }),
        onDone: () => dispatch({ type: 'done', id: reply.id }),
        onError: (message) => dispatch({ type: 'error', id: reply.id, message }),
      },
      controller.current.signal,
    );
  }, []);

  const clear = useCallback(() => {
    controller.current?.abort();
    dispatch({ type: 'reset', messages: [] });
  }, []);

  const isBusy = messages.some((message) => !isFinal(message));
  return { messages, send, clear, isBusy };
}
