import type { InboundFormat } from '../types.js';
import { responsesToChat } from './request.js';
import { chatToResponses } from './response.js';
import { createResponsesStreamEncoder } from './stream.js';

export { readResponsesUsage, responsesPassThrough } from '../../providers/openai/responses-passthrough.js';
export { responsesToChat, toChatMessages } from './request.js';
export { chatToResponses } from './response.js';
export { createResponsesStreamEncoder } from './stream.js';

const errorTypeOf = (status: number): string => {
  if (status === 401) return 'authentication_error';
  if (status === 403) return 'permission_error';
  if (status === 429) return 'rate_limit_error';
  if (status >= 500) return 'server_error';
  return 'invalid_request_error';
};

/** OpenAI Responses API (`POST /v1/responses`) served over any chat channel. */
export const responsesFormat: InboundFormat = {
  wire: 'responses',
  modelOf: (body) => (typeof body.model === 'string' ? body.model : ''),
  isStream: (body) => body.stream === true,
  toOpenAI: (body) => responsesToChat(body),
  fromOpenAI: chatToResponses,
  createStreamEncoder: (model) => createResponsesStreamEncoder(model),
  capOutput: (body, tokens) => {
    body.max_output_tokens = tokens;
  },
  errorBody: (status, message, code) => ({ error: { message, type: errorTypeOf(status), param: null, code } }),
};

/**
 * The Responses format for one kept response (response-store.ts): the answer carries the thread's
 * id, and the thread gets the answer (non-stream, or the stream's final response object).
 */
export function responsesFormatFor(thread: { id: string; answer: Record<string, unknown> | null }): InboundFormat {
  return {
    ...responsesFormat,
    fromOpenAI(completion, model, usage) {
      const response = { ...chatToResponses(completion, model, usage), id: thread.id };
      thread.answer = response;
      return response;
    },
    createStreamEncoder: (model) =>
      createResponsesStreamEncoder(model, { id: thread.id, onComplete: (response) => (thread.answer = response) }),
  };
}
