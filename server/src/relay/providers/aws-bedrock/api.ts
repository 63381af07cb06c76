import { applyModelHeaders } from '../anthropic/api.js';
import type { ChatCall, UpstreamRequest, UpstreamTarget } from '../types.js';
import { parseBedrockKey } from './key.js';
import { bedrockModelId } from './model-ids.js';
import { signRequest } from './sigv4.js';

export const bedrockAnthropicVersion = 'bedrock-2023-05-31';

/**
 * https://bedrock-runtime.{region}.amazonaws.com, or the channel's base URL when the operator set
 * one (a VPC endpoint or a proxy in front of Bedrock).
 */
export function bedrockEndpoint(target: UpstreamTarget): string {
  const region = parseBedrockKey(target.key, target.other).region;
  const base = target.baseURL.trim().replace(/\/+$/, '');
  return base || `https://bedrock-runtime.${region}.amazonaws.com`;
}

/** /model/{modelId}/invoke or /invoke-with-response-stream; the id is path-encoded (`:` → %3A). */
export function bedrockInvokeUrl(target: UpstreamTarget, modelId: string, isStream: boolean): string {
  return `${bedrockEndpoint(target)}/model/${encodeURIComponent(modelId)}/${isStream ? 'invoke-with-response-stream' : 'invoke'}`;
}

const betaList = (value: string | undefined) =>
  (value ?? '')
    .split(',')
    .map((v) => v.trim())
    .filter(Boolean);

/**
 * A Claude Messages body → a signed Bedrock InvokeModel request: no `model` or `stream` field,
 * `anthropic_version: bedrock-2023-05-31`, beta flags (request header + claude.model_headers_settings)
 * in `anthropic_beta`. The body is returned as the exact JSON text that was signed.
 */
export function buildBedrockRequest(
  claudeBody: Record<string, unknown>,
  call: ChatCall,
  isStream: boolean,
  now = new Date(),
): UpstreamRequest {
  const { model, stream: _stream, ...rest } = claudeBody;
  const credentials = parseBedrockKey(call.target.key, call.target.other);
  const modelName = typeof model === 'string' ? model : call.upstreamModel;
  const modelId = bedrockModelId(modelName, credentials.region);
  const incoming: Record<string, string> = {};
  for (const [name, value] of Object.entries(call.target.headers)) incoming[name.toLowerCase()] = value;
  const betas = betaList(
    applyModelHeaders({ 'anthropic-beta': incoming['anthropic-beta'] ?? '' }, modelName, call.options)['anthropic-beta'],
  );
  const body: Record<string, unknown> = { anthropic_version: bedrockAnthropicVersion, ...rest };
  if (betas.length > 0) body.anthropic_beta = betas;
  const text = JSON.stringify(body);
  const url = bedrockInvokeUrl(call.target, modelId, isStream);
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: isStream ? 'application/vnd.amazon.eventstream' : 'application/json',
  };
  if (credentials.kind === 'apikey') {
    headers.authorization = `Bearer ${credentials.apiKey}`;
    return { url, headers, body: text };
  }
  const signed = signRequest({
    method: 'POST',
    url,
    headers,
    body: text,
    region: credentials.region,
    service: 'bedrock',
    accessKeyId: credentials.accessKeyId,
    secretAccessKey: credentials.secretAccessKey,
    sessionToken: credentials.sessionToken,
    now,
  });
  // host is signed; the HTTP client derives the same value from the URL.
  const { host: _host, ...sent } = signed.headers;
  return { url, headers: sent, body: text };
}
