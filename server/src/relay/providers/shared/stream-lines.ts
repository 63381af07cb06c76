import type { Json } from '@modelgate/shared';

/**
 * The JSON object of one stream line read with 'ndjson' framing: a `data: {…}` SSE line, or a bare
 * JSON line (providers that answer a stream request with a plain error body: Baidu, Hunyuan).
 * Null for anything else (blank, `[DONE]`, comments, broken JSON).
 */
export function jsonOfStreamLine(line: string): Json | null {
  let text = line.trim();
  if (text.startsWith('data:')) text = text.slice(5).trim();
  if (!text.startsWith('{')) return null;
  try {
    const parsed: unknown = JSON.parse(text);
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Json) : null;
  } catch {
    return null;
  }
}
