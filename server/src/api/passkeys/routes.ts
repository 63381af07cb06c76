import type { FastifyInstance } from 'fastify';
import { noData, passkeyCreationOptionsSchema, passkeyListSchema, passkeyRequestOptionsSchema, sessionUserSchema } from '@modelgate/shared';
import { ok } from '../../lib/envelope.js';
import { authOf } from '../auth/guards.js';
import { doc } from '../openapi.js';
import type { RouteDeps } from '../route-deps.js';
import { signedInMessage } from '../two-factor/first-step.js';
import { pendingUserOf, startSessionAfterSecondStep } from '../two-factor/pending-user.js';
import { renewSessionCookie, setSessionCookie } from '../users/session-cookie.js';
import { userIdParamsSchema } from '../users/schemas.js';
import { parseInput } from '../validate.js';
import { listPasskeys } from './credentials.js';
import { removePasskey, renamePasskey, resetUserPasskeys } from './manage-passkeys.js';
import { beginPasskeyRegistration, finishPasskeyRegistration } from './register-passkey.js';
import { authenticationFinishSchema, passkeyIdParamsSchema, passkeyNameSchema, registerFinishSchema } from './schemas.js';
import { noteSignIn } from '../audit/sign-in-audit.js';
import { beginPasskeySignIn, passkeyUserOf, verifyPasskeyAssertion } from './sign-in-with-passkey.js';

/**
 * Passkeys (WebAuthn, docs/accounts.md "Passkeys"): sign-in instead of the password, the second step
 * of a sign-in, registration and management from the personal settings, and the admin's reset.
 * The relying party is ServerAddress (relying-party.ts); challenges are one-use, in the cache.
 */
export function registerPasskeyRoutes(api: FastifyInstance, { ctx, guards, critical }: RouteDeps): void {
  // Only the anonymous begin (which keeps a challenge in the cache) is under the critical per-IP rule;
  // a finish needs a live challenge, and the second step a pending sign-in.
  api.post(
    '/user/passkey/login/begin',
    {
      preHandler: critical,
      schema: doc('passkeys', 'start a passkey sign-in (instead of the password)', { data: passkeyRequestOptionsSchema }),
    },
    async () => {
      return ok(await beginPasskeySignIn(ctx, { purpose: 'sign-in', userId: 0 }));
    },
  );
  api.post(
    '/user/passkey/login/finish',
    { schema: doc('passkeys', 'finish a passkey sign-in', { body: authenticationFinishSchema, data: sessionUserSchema }) },
    async (request, reply) => {
      const input = parseInput(authenticationFinishSchema, request.body);
      const { user, sessionVersion } = await passkeyUserOf(
        ctx,
        await verifyPasskeyAssertion(ctx, { purpose: 'sign-in', userId: 0 }, input),
      );
      noteSignIn(request, user, 'sign_in');
      setSessionCookie(request, reply, ctx.config.sessionSecret, user.id, sessionVersion);
      return ok(user, signedInMessage);
    },
  );

  api.post(
    '/user/login/2fa/passkey/begin',
    { schema: doc('passkeys', 'start the second step of a sign-in with a passkey', { data: passkeyRequestOptionsSchema }) },
    async (request) => {
      const pending = await pendingUserOf(ctx, request);
      return ok(await beginPasskeySignIn(ctx, { purpose: 'second-step', userId: pending.user.id }));
    },
  );
  api.post(
    '/user/login/2fa/passkey/finish',
    {
      schema: doc('passkeys', 'finish the second step of a sign-in with a passkey', {
        body: authenticationFinishSchema,
        data: sessionUserSchema,
      }),
    },
    async (request, reply) => {
      const input = parseInput(authenticationFinishSchema, request.body);
      const pending = await pendingUserOf(ctx, request);
      noteSignIn(request, pending.user, 'sign_in_failed');
      await verifyPasskeyAssertion(ctx, { purpose: 'second-step', userId: pending.user.id }, input);
      const { data, message } = startSessionAfterSecondStep(ctx, request, reply, pending);
      return ok(data, message);
    },
  );

  const enrolling = { preHandler: guards.enrolling };
  api.get('/user/passkey', { ...enrolling, schema: doc('passkeys', 'own passkeys', { data: passkeyListSchema }) }, async (request) =>
    ok(await listPasskeys(ctx.storage.db, authOf(request).id)),
  );
  api.post(
    '/user/passkey/register/begin',
    { ...enrolling, schema: doc('passkeys', 'start registering a passkey', { data: passkeyCreationOptionsSchema }) },
    async (request) => {
      return ok(await beginPasskeyRegistration(ctx, authOf(request)));
    },
  );
  api.post(
    '/user/passkey/register/finish',
    { ...enrolling, schema: doc('passkeys', 'finish registering a passkey', { body: registerFinishSchema, data: noData }) },
    async (request, reply) => {
      const input = parseInput(registerFinishSchema, request.body);
      const me = authOf(request);
      renewSessionCookie(request, reply, ctx.config.sessionSecret, me.id, await finishPasskeyRegistration(ctx, me.id, input));
      return ok(null, 'Passkey 注册成功');
    },
  );
  api.put(
    '/user/passkey/:id',
    {
      ...enrolling,
      schema: doc('passkeys', 'rename an own passkey', { params: passkeyIdParamsSchema, body: passkeyNameSchema, data: noData }),
    },
    async (request) => {
      const { id } = parseInput(passkeyIdParamsSchema, request.params);
      await renamePasskey(ctx, authOf(request).id, id, parseInput(passkeyNameSchema, request.body).name);
      return ok(null, 'Passkey 已重命名');
    },
  );
  api.delete(
    '/user/passkey/:id',
    { ...enrolling, schema: doc('passkeys', 'remove an own passkey', { params: passkeyIdParamsSchema, data: noData }) },
    async (request, reply) => {
      const { id } = parseInput(passkeyIdParamsSchema, request.params);
      const me = authOf(request);
      renewSessionCookie(request, reply, ctx.config.sessionSecret, me.id, await removePasskey(ctx, me.id, id));
      return ok(null, 'Passkey 已删除');
    },
  );

  api.delete(
    '/user/:id/passkey',
    {
      preHandler: guards.admin,
      schema: doc('passkeys', 'remove every passkey of a user (admin)', { params: userIdParamsSchema, data: noData }),
    },
    async (request) => {
      const { id } = parseInput(userIdParamsSchema, request.params);
      await resetUserPasskeys(ctx, authOf(request), id);
      return ok(null, 'Passkey 已重置');
    },
  );
}
