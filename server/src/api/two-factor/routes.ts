import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { noData, recoveryCodesSchema, sessionUserSchema, totpSetupSchema, twoFactorStatusSchema } from '@modelgate/shared';
import { ok } from '../../lib/envelope.js';
import { authOf } from '../auth/guards.js';
import { isAdminRole } from '../auth/roles.js';
import { passkeysEnabled } from '../../lib/second-factors.js';
import { doc } from '../openapi.js';
import type { CodeAttemptLimiter } from '../rate-limit.js';
import { noteSignIn } from '../audit/sign-in-audit.js';
import type { RouteDeps } from '../route-deps.js';
import { renewSessionCookie } from '../users/session-cookie.js';
import { userIdParamsSchema } from '../users/schemas.js';
import { parseInput } from '../validate.js';
import { checkSecondFactorCode } from './check-code.js';
import { findTwoFactorStatus } from './find-two-factor-status.js';
import { finishTotpEnrolment, removeTotp, replaceRecoveryCodes, startTotpEnrolment } from './manage-totp.js';
import { pendingUserOf, startSessionAfterSecondStep } from './pending-user.js';
import { resetUserTotp } from './reset-user-totp.js';
import { secondFactorCodeSchema } from './schemas.js';

/** One code attempt: counted per account and IP before the check, given back when the code was right. */
async function attempt<T>(
  limiter: CodeAttemptLimiter,
  request: FastifyRequest,
  reply: FastifyReply,
  userId: number,
  check: () => Promise<T>,
): Promise<T> {
  await limiter.begin(reply, request.ip, userId);
  const result = await check();
  await limiter.succeeded(request.ip, userId);
  return result;
}

/**
 * TOTP two-factor sign-in (docs/accounts.md, "Two-factor sign-in"): the second step of a sign-in,
 * enrolment, disabling and new recovery codes for the signed-in user, and the admin's reset.
 */
export function registerTwoFactorRoutes(api: FastifyInstance, { ctx, guards, codeAttempts }: RouteDeps): void {
  // Not under the critical per-IP rule (every sign-in would count twice): wrong codes are what the attempt limit counts.
  api.post(
    '/user/login/2fa',
    {
      schema: doc('two-factor', 'second step of a sign-in: a TOTP or recovery code', {
        body: secondFactorCodeSchema,
        data: sessionUserSchema,
      }),
    },
    async (request, reply) => {
      const { code } = parseInput(secondFactorCodeSchema, request.body);
      const pending = await pendingUserOf(ctx, request);
      // A failure until the code is right (startSessionAfterSecondStep marks the success).
      noteSignIn(request, pending.user, 'sign_in_failed');
      await attempt(codeAttempts, request, reply, pending.user.id, () => checkSecondFactorCode(ctx, pending.user.id, code, true));
      const { data, message } = startSessionAfterSecondStep(ctx, request, reply, pending);
      return ok(data, message);
    },
  );

  const enrolling = { preHandler: guards.enrolling };
  api.get(
    '/user/2fa/status',
    { ...enrolling, schema: doc('two-factor', 'own second factors', { data: twoFactorStatusSchema }) },
    async (request) => {
      const me = authOf(request);
      return ok(
        await findTwoFactorStatus(ctx, me.id, isAdminRole(me.role) && ctx.options.bool('TwoFactorRequiredForAdmins'), passkeysEnabled(ctx)),
      );
    },
  );
  api.post(
    '/user/2fa/setup',
    { ...enrolling, schema: doc('two-factor', 'start TOTP enrolment: a new secret and its otpauth URI', { data: totpSetupSchema }) },
    async (request) => {
      return ok(await startTotpEnrolment(ctx, authOf(request)), '请使用认证器扫描二维码并输入验证码完成设置');
    },
  );
  api.post(
    '/user/2fa/enable',
    {
      ...enrolling,
      schema: doc('two-factor', 'finish TOTP enrolment with a first code', { body: secondFactorCodeSchema, data: recoveryCodesSchema }),
    },
    async (request, reply) => {
      const { code } = parseInput(secondFactorCodeSchema, request.body);
      const me = authOf(request);
      const { recoveryCodes, sessionVersion } = await attempt(codeAttempts, request, reply, me.id, () =>
        finishTotpEnrolment(ctx, me.id, code),
      );
      renewSessionCookie(request, reply, ctx.config.sessionSecret, me.id, sessionVersion);
      return ok({ backup_codes: recoveryCodes }, '两步验证启用成功');
    },
  );
  api.post(
    '/user/2fa/disable',
    {
      ...enrolling,
      schema: doc('two-factor', 'disable TOTP with a current or recovery code', { body: secondFactorCodeSchema, data: noData }),
    },
    async (request, reply) => {
      const { code } = parseInput(secondFactorCodeSchema, request.body);
      const me = authOf(request);
      await attempt(codeAttempts, request, reply, me.id, () => checkSecondFactorCode(ctx, me.id, code, true));
      renewSessionCookie(request, reply, ctx.config.sessionSecret, me.id, await removeTotp(ctx, me.id));
      return ok(null, '两步验证已禁用');
    },
  );
  api.post(
    '/user/2fa/backup_codes',
    {
      ...enrolling,
      schema: doc('two-factor', 'new recovery codes, with a current TOTP code', {
        body: secondFactorCodeSchema,
        data: recoveryCodesSchema,
      }),
    },
    async (request, reply) => {
      const { code } = parseInput(secondFactorCodeSchema, request.body);
      const me = authOf(request);
      await attempt(codeAttempts, request, reply, me.id, () => checkSecondFactorCode(ctx, me.id, code, false));
      const { recoveryCodes, sessionVersion } = await replaceRecoveryCodes(ctx, me.id);
      renewSessionCookie(request, reply, ctx.config.sessionSecret, me.id, sessionVersion);
      return ok({ backup_codes: recoveryCodes }, '备用码重新生成成功');
    },
  );

  api.delete(
    '/user/:id/2fa',
    { preHandler: guards.admin, schema: doc('two-factor', "reset a user's TOTP (admin)", { params: userIdParamsSchema, data: noData }) },
    async (request) => {
      const { id } = parseInput(userIdParamsSchema, request.params);
      await resetUserTotp(ctx, authOf(request), id);
      return ok(null, '用户两步验证已重置');
    },
  );
}
