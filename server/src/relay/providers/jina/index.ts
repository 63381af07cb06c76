import { createOpenAiCompatible } from '../openai/index.js';

export const jinaAdapter = createOpenAiCompatible({
  slug: 'jina', type: 38, displayName: 'Jina', defaultBaseURL: 'https://api.jina.ai',
  defaultModels: ['jina-embeddings-v3', 'jina-reranker-v2-base-multilingual'], endpoints: ['embeddings', 'rerank'],
});
