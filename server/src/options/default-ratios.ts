/**
 * Default prices, wired as the registry defaults of ModelRatio, CompletionRatio, CacheRatio,
 * CacheCreationRatio and ModelPrice (and restored by POST /api/option/rest_model_ratio).
 *
 * Units (docs/billing.md): ModelRatio 1 = US$2 per 1M prompt tokens (= $0.002 / 1K);
 * CompletionRatio = completion price / prompt price; CacheRatio = cached-prompt price / prompt price;
 * ModelPrice = US$ per call. Figures are the providers' list prices at the time of writing.
 */
type PriceRow = [model: string, promptUsdPer1M: number, completionUsdPer1M: number, cachedUsdPer1M?: number];

const tokenPriced: PriceRow[] = [
  // OpenAI
  ['gpt-5', 1.25, 10, 0.125],
  ['gpt-5-mini', 0.25, 2, 0.025],
  ['gpt-5-nano', 0.05, 0.4, 0.005],
  ['gpt-5-chat-latest', 1.25, 10, 0.125],
  ['gpt-4.1', 2, 8, 0.5],
  ['gpt-4.1-mini', 0.4, 1.6, 0.1],
  ['gpt-4.1-nano', 0.1, 0.4, 0.025],
  ['gpt-4o', 2.5, 10, 1.25],
  ['gpt-4o-2024-11-20', 2.5, 10, 1.25],
  ['gpt-4o-2024-08-06', 2.5, 10, 1.25],
  ['gpt-4o-mini', 0.15, 0.6, 0.075],
  ['chatgpt-4o-latest', 5, 15],
  ['o1', 15, 60, 7.5],
  ['o1-mini', 1.1, 4.4, 0.55],
  ['o3', 2, 8, 0.5],
  ['o3-mini', 1.1, 4.4, 0.55],
  ['o3-pro', 20, 80],
  ['o4-mini', 1.1, 4.4, 0.275],
  ['gpt-4-turbo', 10, 30],
  ['gpt-4', 30, 60],
  ['gpt-3.5-turbo', 0.5, 1.5],
  ['gpt-3.5-turbo-instruct', 1.5, 2],
  ['text-embedding-3-small', 0.02, 0.02],
  ['text-embedding-3-large', 0.13, 0.13],
  ['text-embedding-ada-002', 0.1, 0.1],
  ['omni-moderation-latest', 0, 0],
  ['text-moderation-latest', 0, 0],
  ['gpt-image-1', 5, 40, 1.25],
  ['tts-1', 15, 15],
  ['tts-1-hd', 30, 30],
  ['gpt-4o-mini-tts', 0.6, 12],
  ['whisper-1', 30, 30],
  ['gpt-4o-transcribe', 2.5, 10],
  ['gpt-4o-mini-transcribe', 1.25, 5],
  // Anthropic
  ['claude-opus-4-5-20251101', 5, 25, 0.5],
  ['claude-opus-4-1-20250805', 15, 75, 1.5],
  ['claude-opus-4-20250514', 15, 75, 1.5],
  ['claude-sonnet-4-5-20250929', 3, 15, 0.3],
  ['claude-sonnet-4-20250514', 3, 15, 0.3],
  ['claude-3-7-sonnet-20250219', 3, 15, 0.3],
  ['claude-3-5-sonnet-20241022', 3, 15, 0.3],
  ['claude-haiku-4-5-20251001', 1, 5, 0.1],
  ['claude-3-5-haiku-20241022', 0.8, 4, 0.08],
  ['claude-3-haiku-20240307', 0.25, 1.25, 0.03],
  // Google
  ['gemini-2.5-pro', 1.25, 10, 0.125],
  ['gemini-2.5-flash', 0.3, 2.5, 0.03],
  ['gemini-2.5-flash-lite', 0.1, 0.4, 0.01],
  ['gemini-2.0-flash', 0.1, 0.4, 0.025],
  ['gemini-2.0-flash-lite', 0.075, 0.3],
  ['gemini-1.5-pro', 1.25, 5],
  ['gemini-1.5-flash', 0.075, 0.3],
  ['text-embedding-004', 0, 0],
  // DeepSeek
  ['deepseek-chat', 0.28, 0.42, 0.028],
  ['deepseek-reasoner', 0.28, 0.42, 0.028],
];

/**
 * Models billed per call (US$ per request; images multiply by n; video models per second of video).
 * The Midjourney and Suno task actions carry new-api's defaults, so a new drawing or music channel
 * works on day one.
 */
export const defaultModelPrice: Record<string, number> = {
  'dall-e-3': 0.04,
  'dall-e-2': 0.02,
  'gemini-2.0-flash-exp-image-generation': 0.039,
  ...Object.fromEntries(
    ['imagine', 'variation', 'reroll', 'blend', 'modal', 'zoom', 'shorten', 'high_variation', 'low_variation', 'pan', 'edits'].map(
      (action) => [`mj_${action}`, 0.1],
    ),
  ),
  mj_inpaint: 0,
  mj_custom_zoom: 0,
  mj_describe: 0.05,
  mj_upscale: 0.05,
  mj_upload: 0.05,
  mj_video: 0.8,
  swap_face: 0.05,
  suno_music: 0.1,
  suno_lyrics: 0.01,
  // Video models: US$ per second of video (relay/tasks/video.ts bills the seconds asked), Google's Veo list prices.
  'veo-3.1-generate-preview': 0.4,
  'veo-3.1-fast-generate-preview': 0.15,
  'veo-3.0-generate-001': 0.4,
  'veo-3.0-fast-generate-001': 0.15,
  'veo-2.0-generate-001': 0.35,
  // Kling (type 50; sent in its standard mode): Kling's API price list counts units per 5-second video
  // (kling-v1, kling-v1-6: 1 unit; kling-v2-1: 1.5; kling-v2-5-turbo: 2.5 (pro only at launch); the
  // masters: 10) and sells a unit for about US$0.14 in its resource packages: units × 0.14 / 5 per second.
  'kling-v1': 0.028,
  'kling-v1-6': 0.028,
  'kling-v2-1': 0.042,
  'kling-v2-5-turbo': 0.07,
  'kling-v2-master': 0.28,
  'kling-v2-1-master': 0.28,
};

const round = (value: number) => Math.round(value * 1e6) / 1e6;

export const defaultModelRatio: Record<string, number> = {};
export const defaultCompletionRatio: Record<string, number> = {};
export const defaultCacheRatio: Record<string, number> = {};
/**
 * CacheCreationRatio = prompt-cache write price / prompt price (Anthropic: 5-minute writes cost
 * 1.25× input; Claude 3 Haiku $0.30 vs $0.25 = 1.2). Models not listed use 1.25.
 */
export const defaultCacheCreationRatioFallback = 1.25;
export const defaultCacheCreationRatio: Record<string, number> = { 'claude-3-haiku-20240307': 1.2 };

/**
 * AudioRatio = audio input price / text input price (new-api's meaning, as for realtime), for audio
 * billed outside realtime: transcriptions and translations (docs/relay.md "Audio"). Audio measured
 * by its length counts 1,000 tokens a minute (audio-tokens.ts), so each default lands on OpenAI's
 * per-minute price: whisper-1 15 × 0.2 × 1,000 quota = US$0.006 a minute; gpt-4o-transcribe
 * (US$6 per 1M audio tokens vs 2.5 text) 2.4, ≈ US$0.006 a minute; gpt-4o-mini-transcribe (3 vs 1.25)
 * 2.4, ≈ US$0.003. No option yet: other models bill audio like text (1).
 */
export const defaultAudioRatio: Record<string, number> = {
  'whisper-1': 0.2,
  'gpt-4o-transcribe': 2.4,
  'gpt-4o-mini-transcribe': 2.4,
};

/**
 * ImageRatio = image input price / text input price (new-api's meaning), for the image input tokens
 * of gpt-image-* answers (docs/billing.md "Images"): gpt-image-1 US$10 vs 5 per 1M, gpt-image-1-mini
 * 2.5 vs 2. No option yet: other models bill image input like text (1).
 */
export const defaultImageRatio: Record<string, number> = {
  'gpt-image-1': 2,
  'gpt-image-1-mini': 1.25,
};

for (const [model, prompt, completion, cached] of tokenPriced) {
  defaultModelRatio[model] = round(prompt / 2);
  defaultCompletionRatio[model] = prompt === 0 ? 1 : round(completion / prompt);
  if (cached !== undefined && prompt > 0) defaultCacheRatio[model] = round(cached / prompt);
}
