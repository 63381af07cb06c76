import { createOpenAiCompatible } from '../openai/index.js';

/** Ollama through its OpenAI-compatible /v1 endpoints. */
export const ollamaAdapter = createOpenAiCompatible({
  slug: 'ollama', type: 4, displayName: 'Ollama', defaultBaseURL: 'http://localhost:11434',
  keyHint: '可不填', supportsStreamUsage: true,
  defaultModels: ['llama3.1', 'qwen2.5'], endpoints: ['chat', 'completions', 'embeddings'],
});
