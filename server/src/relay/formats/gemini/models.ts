/** One model in Gemini's `GET /v1beta/models` shape. */
export interface GeminiModelEntry {
  name: string;
  displayName: string;
  description: string;
  supportedGenerationMethods: string[];
}

const isEmbeddingModel = (name: string) => /embed/i.test(name);

/** Model names → `{ models: [{ name: 'models/x', displayName, supportedGenerationMethods }] }`. */
export function listGeminiModels(names: string[]): { models: GeminiModelEntry[] } {
  const unique = [...new Set(names.filter((name) => name.trim() !== ''))];
  return {
    models: unique.map((name) => ({
      name: `models/${name.replace(/^models\//, '')}`,
      displayName: name.replace(/^models\//, ''),
      description: '',
      supportedGenerationMethods: isEmbeddingModel(name)
        ? ['embedContent', 'batchEmbedContents']
        : ['generateContent', 'streamGenerateContent', 'countTokens'],
    })),
  };
}
