/** Claude model names → Bedrock model ids, and the geographies with a cross-region inference profile. */
const models: Record<string, { id: string; geos: string[] }> = {
  'claude-instant-1.2': { id: 'anthropic.claude-instant-v1', geos: [] },
  'claude-2.0': { id: 'anthropic.claude-v2', geos: [] },
  'claude-2.1': { id: 'anthropic.claude-v2:1', geos: [] },
  'claude-3-haiku-20240307': { id: 'anthropic.claude-3-haiku-20240307-v1:0', geos: ['us', 'eu', 'apac'] },
  'claude-3-sonnet-20240229': { id: 'anthropic.claude-3-sonnet-20240229-v1:0', geos: ['us', 'eu', 'apac'] },
  'claude-3-opus-20240229': { id: 'anthropic.claude-3-opus-20240229-v1:0', geos: ['us'] },
  'claude-3-5-sonnet-20240620': { id: 'anthropic.claude-3-5-sonnet-20240620-v1:0', geos: ['us', 'eu', 'apac'] },
  'claude-3-5-sonnet-20241022': { id: 'anthropic.claude-3-5-sonnet-20241022-v2:0', geos: ['us', 'apac'] },
  'claude-3-5-haiku-20241022': { id: 'anthropic.claude-3-5-haiku-20241022-v1:0', geos: ['us'] },
  'claude-3-7-sonnet-20250219': { id: 'anthropic.claude-3-7-sonnet-20250219-v1:0', geos: ['us', 'eu', 'apac'] },
  'claude-sonnet-4-20250514': { id: 'anthropic.claude-sonnet-4-20250514-v1:0', geos: ['us', 'eu', 'apac'] },
  'claude-opus-4-20250514': { id: 'anthropic.claude-opus-4-20250514-v1:0', geos: ['us'] },
  'claude-opus-4-1-20250805': { id: 'anthropic.claude-opus-4-1-20250805-v1:0', geos: ['us'] },
  'claude-sonnet-4-5-20250929': { id: 'anthropic.claude-sonnet-4-5-20250929-v1:0', geos: ['us', 'eu', 'apac'] },
  'claude-haiku-4-5-20251001': { id: 'anthropic.claude-haiku-4-5-20251001-v1:0', geos: ['us', 'eu', 'apac'] },
};

export const bedrockClaudeModels = Object.keys(models);

/** The cross-region inference geography of an AWS region: us-*, eu-*, ap-* → us, eu, apac. */
export function geoOfRegion(region: string): string | null {
  if (region.startsWith('us-')) return 'us';
  if (region.startsWith('eu-')) return 'eu';
  if (region.startsWith('ap-')) return 'apac';
  return null;
}

/**
 * A model name → the Bedrock model id to call: known Claude names map through the table (with
 * the region's cross-region prefix when that geography has a profile for the model); an id that
 * already names a provider (`anthropic.…`, `us.anthropic.…`, an ARN) is used as it is; another
 * `claude-…` name becomes `anthropic.<name>-v1:0`.
 */
export function bedrockModelId(model: string, region: string): string {
  const known = models[model];
  if (known) {
    const geo = geoOfRegion(region);
    return geo && known.geos.includes(geo) ? `${geo}.${known.id}` : known.id;
  }
  if (model.includes('.') || model.startsWith('arn:')) return model;
  if (model.startsWith('claude-')) return `anthropic.${model}-v1:0`;
  return model;
}
