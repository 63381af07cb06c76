/**
 * one-api numbers its channel types differently from new-api (whose numbers ModelGate keeps) from
 * 26 on, and has OpenAI-compatible resellers where new-api has other providers. This maps each
 * one-api type to ModelGate's, with the base URL one-api used when the channel left it empty.
 * Types with no counterpart are not imported (the report names them).
 */
interface TypeMapping {
  type: number;
  /** one-api's default base URL for the type, written when the channel had none. */
  baseUrl?: string;
}

const openAi = (baseUrl: string): TypeMapping => ({ type: 1, baseUrl });

const oneApiTypes: Record<number, TypeMapping | string> = {
  1: { type: 1 },
  2: openAi('https://oa.api2d.net'),
  3: { type: 3 },
  4: openAi('https://api.closeai-proxy.xyz'),
  5: openAi('https://api.openai-sb.com'),
  6: openAi('https://api.openaimax.com'),
  7: openAi('https://api.ohmygpt.com'),
  8: { type: 8 },
  9: openAi('https://api.caipacity.com'),
  10: openAi('https://api.aiproxy.io'),
  11: { type: 11 },
  12: openAi('https://api.api2gpt.com'),
  13: openAi('https://api.aigc2d.com'),
  14: { type: 14 },
  15: { type: 15 },
  16: { type: 16 },
  17: { type: 17 },
  18: { type: 18 },
  19: { type: 19 },
  20: { type: 20 },
  21: { type: 21 },
  22: { type: 22 },
  23: { type: 23 },
  24: { type: 24 },
  25: { type: 25 },
  26: openAi('https://api.baichuan-ai.com'),
  27: { type: 35 },
  28: { type: 42 },
  29: openAi('https://api.groq.com/openai'),
  30: { type: 4 },
  31: { type: 31 },
  32: openAi('https://api.stepfun.com'),
  33: { type: 33 },
  34: 'Coze (one-api type 34) is not a ModelGate channel type',
  35: { type: 34 },
  36: { type: 43 },
  37: { type: 39 },
  38: 'DeepL (one-api type 38) is not a ModelGate channel type',
  39: openAi('https://api.together.xyz'),
  40: { type: 45 },
  41: openAi('https://api.novita.ai/v3/openai'),
  42: { type: 41 },
  43: 'Proxy (one-api type 43) is not a ModelGate channel type',
  44: { type: 40 },
  45: { type: 48 },
  46: 'Replicate (one-api type 46) is not a ModelGate channel type',
  47: { type: 46 },
  48: openAi('https://spark-api-open.xf-yun.com'),
  49: { type: 17 },
  50: { type: 1 },
  51: openAi('https://generativelanguage.googleapis.com/v1beta/openai/'),
};

/** ModelGate's type and default base URL for a one-api type, or why there is none. */
export function mapOneApiType(type: number): TypeMapping | string {
  return oneApiTypes[type] ?? `one-api channel type ${type} is unknown`;
}
