import { createOpenAiCompatible } from '../openai/index.js';

export const volcEngineAdapter = createOpenAiCompatible({
  slug: 'volcengine',
  type: 45,
  displayName: '字节火山方舟',
  defaultBaseURL: 'https://ark.cn-beijing.volces.com',
  versionPath: '/api/v3',
  supportsStreamUsage: true,
  defaultModels: ['doubao-seed-1-6-250615', 'doubao-1-5-pro-32k-250115'],
  endpoints: ['chat', 'embeddings', 'images'],
});
