import { RelayError } from '../../errors.js';

/** The fields of a Google service-account key file that Vertex auth uses. */
export interface ServiceAccount {
  project_id: string;
  private_key_id: string;
  private_key: string;
  client_email: string;
  token_uri: string;
}

export type VertexKey = { kind: 'service-account'; account: ServiceAccount } | { kind: 'api-key'; apiKey: string };

export const defaultTokenUri = 'https://oauth2.googleapis.com/token';

/**
 * The channel key: a service-account JSON (`{"type":"service_account","project_id",...}`) or,
 * when it is not JSON, a Vertex API key (express mode, Gemini models only).
 */
export function parseVertexKey(key: string): VertexKey {
  const trimmed = key.trim();
  if (!trimmed.startsWith('{')) return { kind: 'api-key', apiKey: trimmed };
  let json: Record<string, unknown>;
  try {
    json = JSON.parse(trimmed) as Record<string, unknown>;
  } catch {
    throw new RelayError(500, 'invalid_channel_key', 'Vertex AI 渠道密钥不是有效的服务账号 JSON');
  }
  const text = (name: string) => (typeof json[name] === 'string' ? (json[name] as string) : '');
  const account: ServiceAccount = {
    project_id: text('project_id'),
    private_key_id: text('private_key_id'),
    private_key: text('private_key'),
    client_email: text('client_email'),
    token_uri: text('token_uri') || defaultTokenUri,
  };
  if (!account.private_key || !account.client_email || !account.project_id) {
    throw new RelayError(500, 'invalid_channel_key', 'Vertex AI 服务账号 JSON 缺少 project_id、client_email 或 private_key');
  }
  return { kind: 'service-account', account };
}
