/**
 * Message content for the request span (gen_ai.input.messages, gen_ai.output.messages), built only
 * when OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true: never on the path of a call with
 * capture off. Each attribute is capped so a long conversation cannot make a span (and its export
 * batch) arbitrarily large.
 */
import type { Json } from '@modelgate/shared';

/** The most characters (UTF-16 units) of one content attribute, marker included. */
export const contentCap = 16 * 1024;
const cutMarker = '…[truncated]';

/** JSON text of `value`, cut to contentCap with a marker at the end. */
export function cappedJson(value: unknown): string {
  const text = JSON.stringify(value) ?? '';
  return text.length <= contentCap ? text : `${text.slice(0, contentCap - cutMarker.length)}${cutMarker}`;
}

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The client's answer as JSON: a responder's object, or the bytes/text it sends (parsed here, after the answer went out). */
function answerJson(answer: unknown): Json | null {
  if (isObject(answer) && !Buffer.isBuffer(answer)) return answer;
  if (!Buffer.isBuffer(answer) && typeof answer !== 'string') return null;
  try {
    const parsed: unknown = JSON.parse(Buffer.isBuffer(answer) ? answer.toString('utf8') : answer);
    return isObject(parsed) ? parsed : null;
  } catch {
    return null;
  }
}

/**
 * The answer's messages in the format the client was answered with: OpenAI chat (`choices[].message`)
 * and completions (`choices[].text`), Claude (`content`), Gemini (`candidates[].content`). Null for
 * an answer with no text of these shapes.
 */
export function outputMessagesOf(answer: unknown): unknown[] | null {
  const json = answerJson(answer);
  if (json === null) return null;
  if (Array.isArray(json.choices)) {
    return json.choices
      .filter(isObject)
      .map((choice) => (isObject(choice.message) ? choice.message : { role: 'assistant', content: choice.text ?? '' }));
  }
  if (Array.isArray(json.content)) return [{ role: typeof json.role === 'string' ? json.role : 'assistant', content: json.content }];
  if (Array.isArray(json.candidates)) return json.candidates.filter(isObject).map((candidate) => candidate.content ?? null);
  return null;
}
