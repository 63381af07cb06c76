import { consoleHeaders } from '../../../lib/http';

export interface ChatTurn {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

export interface ChatRequest {
  messages: ChatTurn[];
  model: string;
  group: string;
  /** 0 leaves the upstream default (the slider starts at 0.1). */
  temperature: number;
  /** 0 leaves the upstream default. */
  max_tokens: number;
}

export interface StreamHandlers {
  onDelta: (text: string) => void;
  onDone: () => void;
  onError: (message: string) => void;
}

function errorOf(payload: unknown): string | null {
  if (typeof payload !== 'object' || payload === null) return null;
  const error = (payload as { error?: unknown }).error;
  if (typeof error === 'string') return error;
  if (typeof error === 'object' && error !== null && typeof (error as { message?: unknown }).message === 'string')
    return (error as { message: string }).message;
  const message =
    (payload as { message?: unknown; success?: unknown }).success === false ? (payload as { message?: unknown }).message : null;
  return typeof message === 'string' ? message : null;
}

/** Handles one SSE `data:` payload; returns true at the '[DONE]' marker. */
function handleEvent(data: string, handlers: StreamHandlers): boolean {
  if (data === '[DONE]') return true;
  let payload: unknown;
  try {
    payload = JSON.parse(data);
  } catch {
    handlers.onError(data);
    return true;
  }
  const problem = errorOf(payload);
  if (problem) {
    handlers.onError(problem);
    return true;
  }
  const delta = (payload as { choices?: { delta?: { content?: string | null } }[] }).choices?.[0]?.delta?.content;
  if (delta) handlers.onDelta(delta);
  return false;
}

/**
 * POST /pg/chat/completions (session-authenticated): streams server-sent events, each
 * carrying choices[0].delta.content, until a '[DONE]' event. Streaming is not JSON, so this is the
 * one call that bypasses the envelope client; it still sends the client's headers (New-Api-User, Accept-Language).
 */
export async function streamChat(request: ChatRequest, handlers: StreamHandlers, signal?: AbortSignal): Promise<void> {
  const headers: Record<string, string> = { 'Content-Type': 'application/json', Accept: 'text/event-stream', ...consoleHeaders() };
  const body = {
    ...request,
    stream: true,
    temperature: request.temperature > 0 ? request.temperature : undefined,
    max_tokens: request.max_tokens > 0 ? request.max_tokens : undefined,
  };
  let response: Response;
  try {
    response = await fetch('/pg/chat/completions', {
      method: 'POST',
      headers,
      body: JSON.stringify(body),
      credentials: 'same-origin',
      signal,
    });
  } catch (error) {
    handlers.onError(error instanceof Error ? error.message : String(error));
    return;
  }
  if (!response.ok || !response.body) {
    const text = await response.text().catch(() => '');
    let message = text || response.statusText || String(response.status);
    try {
      message = errorOf(JSON.parse(text)) ?? message;
    } catch {
      // not JSON: keep the text
    }
    handlers.onError(message);
    return;
  }
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += value;
      let boundary = buffer.indexOf('\n');
      while (boundary >= 0) {
        const line = buffer.slice(0, boundary).replace(/\r$/, '');
        buffer = buffer.slice(boundary + 1);
        if (line.startsWith('data:') && handleEvent(line.slice(5).trim(), handlers)) {
          await reader.cancel().catch(() => undefined);
          handlers.onDone();
          return;
        }
        boundary = buffer.indexOf('\n');
      }
    }
  } catch (error) {
    handlers.onError(error instanceof Error ? error.message : String(error));
    return;
  }
  handlers.onDone();
}
