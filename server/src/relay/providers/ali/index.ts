import { createOpenAiCompatible } from '../openai/index.js';

/** DashScope's OpenAI-compatible mode. */
export const aliAdapter = createOpenAiCompatible({
  slug: 'ali',
  type: 17,
  displayName: '阿里通义千问',
  defaultBaseURL: 'https://dashscope.aliyuncs.com',
  versionPath: '/compatible-mode/v1',
  supportsStreamUsage: true,
  defaultModels: ['qwen-max', 'qwen-plus', 'qwen-turbo', 'text-embedding-v3'],
  endpoints: ['chat', 'embeddings'],
});
