import { doc } from '../openapi.js';
import { noData, resetPasswordAnswerSchema } from '@modelgate/shared';
import type { FastifyInstance } from 'fastify';
import { ok } from '../../lib/envelope.js';
import { requestLanguage } from '../../lib/i18n/index.js';
import { OneTimeCodes } from '../../mail/one-time-codes.js';
import { authOf } from '../auth/guards.js';
import type { RouteDeps } from '../route-deps.js';
import { parseInput } from '../validate.js';
import { bindEmail, emailBoundMessage } from './bind-email.js';
import { confirmPasswordReset, requestPasswordReset, resetMessages } from './reset-password.js';
import { emailBindQuerySchema, emailQuerySchema, passwordResetSchema } from './schemas.js';
import { sendVerificationCode } from './send-verification-code.js';

/** Mail journeys: verification codes, the email bind, and password reset by a mailed link. */
export function registerVerificationRoutes(api: FastifyInstance, { ctx, guards, critical, turnstile }: RouteDeps): void {
  const codes = new OneTimeCodes(ctx.cache);
  const guarded = { preHandler: [critical, turnstile] };
  api.get(
    '/verification',
    { ...guarded, schema: doc('verification', 'send verification code', { querystring: emailQuerySchema, data: noData }) },
    async (request) => {
      await sendVerificationCode(ctx, codes, request.log, parseInput(emailQuerySchema, request.query).email, requestLanguage(request));
      return ok(null, '验证码发送成功，请检查你的邮箱！');
    },
  );
  api.get(
    '/reset_password',
    { ...guarded, schema: doc('verification', 'request password reset', { querystring: emailQuerySchema, data: noData }) },
    async (request) => {
      await requestPasswordReset(ctx, codes, request.log, parseInput(emailQuerySchema, request.query).email, requestLanguage(request));
      return ok(null, resetMessages.sent);
    },
  );
  api.post(
    '/user/reset',
    {
      preHandler: critical,
      schema: doc('verification', 'confirm password reset', { body: passwordResetSchema, data: resetPasswordAnswerSchema }),
    },
    async (request) => {
      const { email, token } = parseInput(passwordResetSchema, request.body);
      return ok(await confirmPasswordReset(ctx, codes, email, token), resetMessages.done);
    },
  );
  api.get(
    '/oauth/email/bind',
    { preHandler: guards.user, schema: doc('verification', 'bind email', { querystring: emailBindQuerySchema, data: noData }) },
    async (request) => {
      const { email, code } = parseInput(emailBindQuerySchema, request.query);
      await bindEmail(ctx, codes, authOf(request).id, email, code);
      return ok(null, emailBoundMessage);
    },
  );
}
