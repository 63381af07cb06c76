/**
 * claude.model_headers_settings: extra request headers for Claude models, `{ "<model>": { "<header>":
 * "v" | ["v1", "v2"] } }` (new-api's setting; anthropic-beta flags are its use). An admin sets it, and
 * the headers go out with the channel's key: a header that decides where the request lands (`host`),
 * how it is framed (`content-length`, `transfer-encoding`, `connection`, …) or who it is from (the
 * credential headers) is not the setting's to change, and a name or value that is not valid HTTP
 * would fail every call of the model as if the channel were down.
 */

/** Headers the setting may not set. */
const reservedHeaders: ReadonlySet<string> = new Set([
  'host',
  'content-length',
  'content-type',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'upgrade',
  'te',
  'trailer',
  'expect',
  'proxy-authorization',
  'proxy-connection',
  'authorization',
  'x-api-key',
  'api-key',
  'x-goog-api-key',
  'cookie',
]);

/** An HTTP header name (RFC 9110 token). */
const tokenName = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** A header value: visible characters, spaces and tabs, nothing that could end the line. */
const fieldValue = /^[\t\x20-\x7e]*$/;
const maxValueLength = 8192;

/** Why one header of the setting cannot be sent, or null when it can. */
export function modelHeaderProblem(name: string, value: unknown): string | null {
  if (!tokenName.test(name)) return `请求头名称 ${name.slice(0, 64)} 不合法`;
  if (reservedHeaders.has(name.toLowerCase())) return `请求头 ${name} 不能在此设置`;
  const values = Array.isArray(value) ? value : [value];
  const isValid = values.every((item) => typeof item === 'string' && item.length <= maxValueLength && fieldValue.test(item));
  return isValid ? null : `请求头 ${name} 的值必须是不含换行等控制字符的 ASCII 字符串或其数组`;
}

/** The option's check on save: a JSON object of models, each an object of headers the setting may send. */
export function modelHeadersCheck(value: string): string | null {
  const parsed: unknown = JSON.parse(value);
  const isTable = (item: unknown): item is Record<string, unknown> => typeof item === 'object' && item !== null && !Array.isArray(item);
  if (!isTable(parsed)) return '必须是 JSON 对象';
  for (const [model, headers] of Object.entries(parsed)) {
    if (!isTable(headers)) return `${model} 的值必须是请求头对象`;
    for (const [name, headerValue] of Object.entries(headers)) {
      const problem = modelHeaderProblem(name, headerValue);
      if (problem) return `${model}: ${problem}`;
    }
  }
  return null;
}
