import type { InboundFormat } from '../types.js';
import { geminiErrorBody } from './errors.js';
import { isStreamAction, parseModelPath } from './params.js';
import { geminiToOpenAI } from './request.js';
import { openAIToGemini } from './response.js';
import { createGeminiStreamEncoder } from './stream.js';

export { listGeminiModels } from './models.js';
export { parseModelPath } from './params.js';

/** The Gemini inbound API: `POST /v1beta/models/{model}:generateContent|streamGenerateContent`. */
export const geminiFormat: InboundFormat = {
  wire: 'gemini',
  modelOf: (_body, params) => parseModelPath(params).model,
  isStream: (_body, params) => isStreamAction(parseModelPath(params).action),
  toOpenAI: geminiToOpenAI,
  fromOpenAI: openAIToGemini,
  createStreamEncoder: createGeminiStreamEncoder,
  capOutput: (body, tokens) => {
    const config = body.generationConfig;
    body.generationConfig = { ...(config && typeof config === 'object' && !Array.isArray(config) ? config : {}), maxOutputTokens: tokens };
  },
  errorBody: geminiErrorBody,
};
