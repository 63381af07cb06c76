import { sign } from 'node:crypto';
import { base64url } from '../shared/crypto.js';
import type { ServiceAccount } from './credentials.js';

export const cloudPlatformScope = 'https://www.googleapis.com/auth/cloud-platform';

/**
 * The signed JWT assertion of Google's service-account OAuth flow: RS256 over
 * `{alg,typ,kid}.{iss: client_email, scope: cloud-platform, aud: token_uri, iat, exp: iat+3600}`.
 */
export function createServiceAccountJwt(account: ServiceAccount, nowSeconds: number): string {
  const header: Record<string, string> = { alg: 'RS256', typ: 'JWT' };
  if (account.private_key_id) header.kid = account.private_key_id;
  const claims = { iss: account.client_email, scope: cloudPlatformScope, aud: account.token_uri, iat: nowSeconds, exp: nowSeconds + 3600 };
  const signingInput = `${base64url(JSON.stringify(header))}.${base64url(JSON.stringify(claims))}`;
  const signature = sign('RSA-SHA256', Buffer.from(signingInput), account.private_key);
  return `${signingInput}.${base64url(signature)}`;
}
