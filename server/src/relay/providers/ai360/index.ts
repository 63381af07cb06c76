import { createOpenAiCompatible } from '../openai/index.js';

export const ai360Adapter = createOpenAiCompatible({
  slug: 'ai360',
  type: 19,
  displayName: '360 智脑',
  defaultBaseURL: 'https://api.360.cn',
  defaultModels: ['360gpt-pro', '360gpt-turbo', 'embedding-bert-512-v1'],
  endpoints: ['chat', 'embeddings'],
});
