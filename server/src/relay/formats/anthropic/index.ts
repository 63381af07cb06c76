import type { InboundFormat } from '../types.js';
import { claudeRequestToOpenAi } from './request.js';
import { claudeErrorBody, openAiToClaudeResponse } from './response.js';
import { createClaudeStreamEncoder } from './stream.js';

/** The Anthropic Messages API (POST /v1/messages) served on any channel. */
export const claudeFormat: InboundFormat = {
  wire: 'claude',
  modelOf: (body) => (typeof body.model === 'string' ? body.model : ''),
  isStream: (body) => body.stream === true,
  toOpenAI: (body) => claudeRequestToOpenAi(body),
  fromOpenAI: openAiToClaudeResponse,
  createStreamEncoder: createClaudeStreamEncoder,
  capOutput: (body, tokens) => {
    body.max_tokens = tokens;
  },
  errorBody: claudeErrorBody,
};
