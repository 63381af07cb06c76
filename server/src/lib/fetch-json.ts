import type { FastifyBaseLogger } from 'fastify';
import { invalidInput } from './errors.js';

const timeoutMs = 10_000;
const maxBodyBytes = 1024 * 1024;

/**
 * One outgoing call to an outside party (sign-in providers, the bot check): a 10 s timeout, a 1 MiB answer at most, JSON expected.
 * Network failures and non-JSON answers become a 400 naming the provider (logged without secrets);
 * HTTP error statuses are returned for the caller to judge, since some providers explain in the body.
 */
export async function fetchJson(
  log: FastifyBaseLogger,
  label: string,
  url: string,
  init: RequestInit = {},
): Promise<{ status: number; body: unknown }> {
  let response: Response;
  try {
    response = await fetch(url, { ...init, redirect: 'error', signal: AbortSignal.timeout(timeoutMs) });
  } catch (error) {
    log.warn(
      { provider: label, url: url.split('?')[0], err: error instanceof Error ? error.message : String(error) },
      'sign-in provider unreachable',
    );
    throw invalidInput(`无法连接到 ${label}，请稍后再试`);
  }
  const text = await response.text();
  if (text.length > maxBodyBytes) throw invalidInput(`${label} 返回了无法识别的数据`);
  try {
    return { status: response.status, body: JSON.parse(text) as unknown };
  } catch {
    log.warn({ provider: label, url: url.split('?')[0], status: response.status }, 'sign-in provider answered non-JSON');
    throw invalidInput(`${label} 返回了无法识别的数据`);
  }
}
