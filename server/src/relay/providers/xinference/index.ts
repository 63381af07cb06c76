import { createOpenAiCompatible } from '../openai/index.js';

export const xinferenceAdapter = createOpenAiCompatible({
  slug: 'xinference',
  type: 47,
  displayName: 'Xinference',
  defaultBaseURL: '',
  keyHint: '可不填（自部署服务）',
  extraFields: [{ name: 'base_url', label: '服务地址', required: true, placeholder: 'http://host:9997' }],
  defaultModels: ['bge-reranker-v2-m3', 'jina-reranker-v2'],
  endpoints: ['chat', 'completions', 'embeddings', 'rerank'],
});
