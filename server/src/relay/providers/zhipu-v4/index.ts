import { createOpenAiCompatible } from '../openai/index.js';

export const zhipuV4Adapter = createOpenAiCompatible({
  slug: 'zhipu-v4',
  type: 26,
  displayName: '智谱 GLM-4V',
  defaultBaseURL: 'https://open.bigmodel.cn',
  keyHint: 'id.secret',
  versionPath: '/api/paas/v4',
  supportsStreamUsage: true,
  defaultModels: ['glm-4-plus', 'glm-4-flash', 'glm-4v', 'embedding-3'],
  endpoints: ['chat', 'embeddings', 'images'],
  // GLM takes one stop word.
  stopSequenceLimit: () => 1,
});
