import type { OidcDiscovery } from '@modelgate/shared';
import type { FastifyBaseLogger } from 'fastify';
import { AppError, invalidInput } from '../../lib/errors.js';
import { oidcDiscoveryFailedMessage } from './providers/oidc.js';

/** A discovery document is a few KiB; anything past this is not one. */
export const maxDiscoveryBytes = 256 * 1024;

const maxUrlLength = 2048;

/** A field of the document that must be an http(s) URL; '' when absent, null when it is something else. */
function urlField(doc: Record<string, unknown>, name: string): string | null {
  const value = doc[name];
  if (value === undefined || value === null || value === '') return '';
  if (typeof value !== 'string' || value.length > maxUrlLength || !/^https?:\/\/[^\s]+$/i.test(value)) return null;
  return value;
}

/** Reads a body up to `limit` bytes; past it the download is cancelled and the document refused. */
async function readBounded(response: Response, limit: number): Promise<Buffer> {
  const declared = Number(response.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > limit) {
    await response.body?.cancel();
    throw invalidInput(`OIDC 配置文档超过 ${limit / 1024} KB`);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  if (!response.body) return Buffer.alloc(0);
  const reader = response.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel();
      throw invalidInput(`OIDC 配置文档超过 ${limit / 1024} KB`);
    }
    chunks.push(Buffer.from(value));
  }
  return Buffer.concat(chunks);
}

/**
 * The console's "fetch configuration": the server GETs the well-known document (http or https, so
 * intranet providers work, while the console's CSP stays strict) within `timeoutSeconds` for the whole
 * exchange and `maxDiscoveryBytes`, and answers only the endpoint fields — each an http(s) URL — never
 * the document itself. Every failure is a 400 saying what went wrong (logged with the host only).
 */
export async function discoverOidc(log: FastifyBaseLogger, wellKnown: string, timeoutSeconds: number): Promise<OidcDiscovery> {
  const url = new URL(wellKnown);
  const signal = AbortSignal.timeout(timeoutSeconds * 1000);
  let body: Buffer;
  let status: number;
  try {
    const response = await fetch(url, { headers: { accept: 'application/json' }, signal, redirect: 'follow' });
    status = response.status;
    body = await readBounded(response, maxDiscoveryBytes);
  } catch (error) {
    if (error instanceof AppError) throw error;
    const isTimeout = signal.aborted;
    log.warn(
      { host: url.host, err: error instanceof Error ? error.message : String(error) },
      isTimeout ? 'OIDC discovery timed out' : 'OIDC discovery failed',
    );
    throw invalidInput(isTimeout ? `获取 OIDC 配置超时（${timeoutSeconds} 秒）` : oidcDiscoveryFailedMessage);
  }
  if (status < 200 || status > 299) throw invalidInput(`获取 OIDC 配置失败：Well-Known URL 返回 HTTP ${status}`);
  let doc: unknown;
  try {
    doc = JSON.parse(body.toString('utf8'));
  } catch {
    throw invalidInput('OIDC 配置文档不是合法的 JSON');
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) throw invalidInput('OIDC 配置文档不是合法的 JSON');
  const fields = {
    issuer: urlField(doc as Record<string, unknown>, 'issuer'),
    authorization_endpoint: urlField(doc as Record<string, unknown>, 'authorization_endpoint'),
    token_endpoint: urlField(doc as Record<string, unknown>, 'token_endpoint'),
    userinfo_endpoint: urlField(doc as Record<string, unknown>, 'userinfo_endpoint'),
  };
  if (!fields.authorization_endpoint || !fields.token_endpoint || Object.values(fields).some((value) => value === null)) {
    throw invalidInput('OIDC 配置文档缺少 authorization_endpoint、token_endpoint，或端点不是 http(s) 地址');
  }
  return fields as OidcDiscovery;
}
