import { createOpenAiCompatible } from '../openai/index.js';

export const mistralAdapter = createOpenAiCompatible({
  slug: 'mistral',
  type: 42,
  displayName: 'Mistral AI',
  defaultBaseURL: 'https://api.mistral.ai',
  defaultModels: ['mistral-large-latest', 'mistral-small-latest', 'codestral-latest', 'mistral-embed'],
  endpoints: ['chat', 'embeddings'],
});
