import secureJson from 'secure-json-parse';
import { AppError } from './errors.js';

/**
 * Request bodies as JSON: prototype poisoning refused (secure-json-parse), and nesting deeper than a
 * bound refused before anything else reads the value. Deep input is what breaks a gateway from the
 * outside: JSON.stringify and the recursive converters overflow the stack at a few thousand levels,
 * and the failure would look like the upstream's. One parser for Fastify's routes and the direct lane.
 */

const parseOptions = { protoAction: 'error', constructorAction: 'error' } as const;

/** The body is not JSON (Fastify's own wording, which clients already see for this case). */
export const invalidJsonMessage = "Body is not valid JSON but content-type is set to 'application/json'";
export const emptyJsonMessage = "Body cannot be empty when content-type is set to 'application/json'";

export class JsonBodyError extends AppError {
  constructor(
    message: string,
    readonly reason: 'invalid_request' | 'json_too_deep',
  ) {
    super('invalid_input', message);
  }
}

export const tooDeepMessage = (maxDepth: number): string => `请求体的 JSON 嵌套超过 ${maxDepth} 层`;

/**
 * Whether a parsed value nests objects and arrays deeper than `maxDepth` (a top-level object is depth
 * 1). Walked with a stack of its own, so no input and no bound can overflow the call stack here.
 */
export function isDeeperThan(value: unknown, maxDepth: number): boolean {
  if (value === null || typeof value !== 'object') return false;
  const pending: unknown[] = [value];
  const depths: number[] = [1];
  while (pending.length > 0) {
    const item = pending.pop() as object;
    const depth = depths.pop()!;
    if (depth > maxDepth) return true;
    const children: unknown[] = Array.isArray(item) ? item : Object.values(item);
    for (let i = 0; i < children.length; i += 1) {
      const child = children[i];
      if (child !== null && typeof child === 'object') {
        pending.push(child);
        depths.push(depth + 1);
      }
    }
  }
  return false;
}

/**
 * Whether secure-json-parse's checks could find anything in `text`. Its patterns match a key
 * `"__proto__"` or `"constructor"` with any of their characters written as a `\u` escape, and it strips
 * a byte order mark; a text with none of these is parsed by JSON.parse alone, which gives the value
 * secure-json-parse would, without its two pattern scans of the whole text. On a long prompt those
 * cost more than the parse (32 KiB: 7 µs, the parse 7 µs, these searches 0.6 µs); on a short body
 * they cost less than the searches, so short bodies keep them.
 */
function mayBePoisoned(text: string): boolean {
  if (text.length < 1024) return true;
  return text.charCodeAt(0) === 0xfeff || text.includes('\\u') || text.includes('"__proto__"') || text.includes('"constructor"');
}

/** Parses a request body; throws a JsonBodyError (400) for empty, malformed, poisoned or too deep input. */
export function parseJsonBody(text: string, maxDepth: number): unknown {
  if (text.length === 0) throw new JsonBodyError(emptyJsonMessage, 'invalid_request');
  let value: unknown;
  try {
    value = mayBePoisoned(text) ? secureJson.parse(text, parseOptions) : JSON.parse(text);
  } catch {
    // Malformed, poisoned, or nested beyond what the parser itself can take (a RangeError).
    throw new JsonBodyError(invalidJsonMessage, 'invalid_request');
  }
  if (isDeeperThan(value, maxDepth)) throw new JsonBodyError(tooDeepMessage(maxDepth), 'json_too_deep');
  return value;
}
