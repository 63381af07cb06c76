import type { FastifyRequest, preHandlerAsyncHookHandler } from 'fastify';
import { AppError, invalidInput } from '../../lib/errors.js';
import { fetchJson } from '../../lib/fetch-json.js';
import type { AppContext } from '../../context.js';

export const turnstileMessages = {
  missing: 'Turnstile token 为空',
  rejected: 'Turnstile 校验失败，请刷新重试！',
} as const;

const maxTokenLength = 2048;

function tokenOf(request: FastifyRequest): string {
  const value = (request.query as Record<string, unknown> | undefined)?.turnstile;
  return typeof value === 'string' ? value.trim() : '';
}

/**
 * The bot check (TurnstileCheckEnabled) for sign-in, registration, verification mail and
 * password reset: the `turnstile` query token is verified with Cloudflare's siteverify endpoint
 * (TURNSTILE_VERIFY_URL) before the route does anything. A missing or rejected token is a 400 and
 * nothing else happens; an unreachable verifier is a 400 too (never an open door), logged.
 */
export function createTurnstileCheck(ctx: AppContext): preHandlerAsyncHookHandler {
  return async function checkTurnstile(request) {
    if (!ctx.options.bool('TurnstileCheckEnabled')) return;
    const token = tokenOf(request);
    if (!token) throw invalidInput(turnstileMessages.missing);
    if (token.length > maxTokenLength) throw invalidInput(turnstileMessages.rejected);
    const form = new URLSearchParams({ secret: ctx.options.get('TurnstileSecretKey'), response: token, remoteip: request.ip });
    const { status, body } = await fetchJson(request.log, 'Turnstile', ctx.config.turnstileVerifyUrl, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: form.toString(),
    });
    const answer = body as { success?: unknown; 'error-codes'?: unknown } | null;
    if (status !== 200 || answer?.success !== true) {
      request.log.warn(
        { status, errorCodes: Array.isArray(answer?.['error-codes']) ? answer['error-codes'] : undefined },
        'turnstile token rejected',
      );
      throw new AppError('invalid_input', turnstileMessages.rejected);
    }
  };
}
