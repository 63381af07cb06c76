import { createOpenAiCompatible } from '../openai/index.js';

export const m3eAdapter = createOpenAiCompatible({
  slug: 'm3e',
  type: 44,
  displayName: 'M3E (MokaAI)',
  defaultBaseURL: 'https://api.moka.ai',
  defaultModels: ['m3e', 'm3e-small', 'm3e-base', 'm3e-large'],
  endpoints: ['embeddings'],
});
