import { createOpenAiCompatible } from '../openai/index.js';

/** xAI leaves reasoning tokens out of completion_tokens: completion = total − prompt. */
export const xaiAdapter = createOpenAiCompatible({
  slug: 'xai',
  type: 48,
  displayName: 'xAI',
  defaultBaseURL: 'https://api.x.ai',
  defaultModels: ['grok-4', 'grok-3', 'grok-3-mini'],
  endpoints: ['chat', 'completions', 'images'],
  supportsStreamUsage: true,
  isCompletionFromTotal: true,
  // Its reasoning models (grok-4, grok-3-mini, grok-code) refuse `stop`.
  stopSequenceLimit: (model) => (/^grok-(4|3-mini|code)/.test(model) ? 0 : 4),
});
