import { doc } from '../openapi.js';
import {
  adminUserDetailSchema,
  adminUserPageSchema,
  createdUserSchema,
  loginAnswerSchema,
  managedUserSchema,
  noData,
  selfGroupsSchema,
  selfUserSchema,
  userModelsSchema,
  userSecretSchema,
} from '@modelgate/shared';
import type { FastifyInstance } from 'fastify';
import { ok } from '../../lib/envelope.js';
import { AppError } from '../../lib/errors.js';
import { requestLanguage } from '../../lib/i18n/index.js';
import { authOf } from '../auth/guards.js';
import { sessionCookieName } from '../../lib/session.js';
import type { RouteDeps } from '../route-deps.js';
import { parseInput } from '../validate.js';
import { createUser } from './create-user.js';
import { deleteSelf } from './delete-self.js';
import { findSelfGroups } from './find-self-groups.js';
import { findUserModels } from './find-user-models.js';
import { listUsers, searchUsers } from './find-users.js';
import { generateAccessToken } from './generate-access-token.js';
import { getAffCode } from './get-aff-code.js';
import { getSelf } from './get-self.js';
import { getUser } from './get-user.js';
import { loginUser, wrongCredentialsMessage } from './login-user.js';
import { noteFailedSignIn } from '../audit/sign-in-audit.js';
import { logoutUser } from './logout-user.js';
import { manageUser } from './manage-user.js';
import { registerUser } from './register-user.js';
import {
  affTransferSchema,
  createUserSchema,
  loginSchema,
  manageUserSchema,
  registerSchema,
  updateSelfSchema,
  updateUserSchema,
  userIdParamsSchema,
  userPageQuerySchema,
  userSearchQuerySchema,
  userSettingSchema,
} from './schemas.js';
import { clearSessionCookie, setSessionCookie } from './session-cookie.js';
import { transferAffQuota } from './transfer-aff-quota.js';
import { completeFirstStep } from '../two-factor/first-step.js';
import { updateSelf } from './update-self.js';
import { updateUserSetting } from './update-user-setting.js';
import { updateUser } from './update-user.js';

/** Sign-in, registration, self service and user administration under /api/user. */
export function registerUserRoutes(api: FastifyInstance, { ctx, guards, critical, signIn, turnstile }: RouteDeps): void {
  // Sign-in and registration
  api.post(
    '/user/login',
    { preHandler: turnstile, schema: doc('users', 'login user', { body: loginSchema, data: loginAnswerSchema }) },
    async (request, reply) => {
      const input = parseInput(loginSchema, request.body);
      await signIn.assertAllowed(reply, request.ip, input.username);
      const { user, sessionVersion } = await loginUser(ctx, input).catch(async (error: unknown) => {
        if (error instanceof Error && error.message === wrongCredentialsMessage) await signIn.recordFailure(request.ip, input.username);
        if (error instanceof AppError) await noteFailedSignIn(ctx, request, input.username);
        throw error;
      });
      // With a second factor, no session yet: the second step (two-factor/routes.ts) starts it.
      const { data, message } = await completeFirstStep(ctx, request, reply, user, sessionVersion);
      return ok(data, message);
    },
  );
  api.get('/user/logout', { schema: doc('users', 'logout user', { data: noData }) }, async (request, reply) => {
    await logoutUser(ctx, request.cookies?.[sessionCookieName]);
    clearSessionCookie(request, reply);
    return ok(null);
  });
  api.post(
    '/user/register',
    { preHandler: [critical, turnstile], schema: doc('users', 'register user', { body: registerSchema, data: noData }) },
    async (request) => {
      await registerUser(ctx, parseInput(registerSchema, request.body));
      return ok(null, '注册成功！');
    },
  );

  // Self service
  const user = { preHandler: guards.user };
  api.get('/user/self', { preHandler: guards.enrolling, schema: doc('users', 'get self', { data: selfUserSchema }) }, async (request) =>
    ok(await getSelf(ctx, authOf(request).id)),
  );
  api.put(
    '/user/self',
    { ...user, schema: doc('users', 'update self', { body: updateSelfSchema, data: noData }) },
    async (request, reply) => {
      const me = authOf(request);
      const sessionVersion = await updateSelf(ctx, me.id, parseInput(updateSelfSchema, request.body));
      // A password change ended every session; this browser is signed in again under the new version.
      if (sessionVersion !== null) setSessionCookie(request, reply, ctx.config.sessionSecret, me.id, sessionVersion);
      return ok(null, '用户信息更新成功！');
    },
  );
  api.delete('/user/self', { ...user, schema: doc('users', 'delete self', { data: noData }) }, async (request, reply) => {
    await deleteSelf(ctx, authOf(request));
    clearSessionCookie(request, reply);
    return ok(null, '账户已删除！');
  });
  api.get(
    '/user/self/groups',
    { ...user, schema: doc('users', 'list groups the caller may use', { data: selfGroupsSchema }) },
    async (request) => ok(findSelfGroups(ctx, authOf(request).group, requestLanguage(request))),
  );
  // The personal settings page reads these too: open to an admin who must still enrol a second factor.
  api.get(
    '/user/models',
    { preHandler: guards.enrolling, schema: doc('users', 'find user models', { data: userModelsSchema }) },
    async (request) => ok(await findUserModels(ctx, authOf(request).group)),
  );
  api.get('/user/token', { ...user, schema: doc('users', 'generate access token', { data: userSecretSchema }) }, async (request) =>
    ok(await generateAccessToken(ctx, authOf(request).id)),
  );
  api.get(
    '/user/aff',
    { preHandler: guards.enrolling, schema: doc('users', 'get aff code', { data: userSecretSchema }) },
    async (request) => ok(await getAffCode(ctx, authOf(request).id)),
  );
  api.post(
    '/user/aff_transfer',
    { ...user, schema: doc('users', 'transfer aff quota', { body: affTransferSchema, data: noData }) },
    async (request) => {
      await transferAffQuota(ctx, authOf(request).id, parseInput(affTransferSchema, request.body).quota);
      return ok(null, '划转成功');
    },
  );
  api.put(
    '/user/setting',
    { ...user, schema: doc('users', 'update user setting', { body: userSettingSchema, data: noData }) },
    async (request) => {
      await updateUserSetting(ctx, authOf(request), parseInput(userSettingSchema, request.body));
      return ok(null, '通知设置已更新');
    },
  );

  // Administration
  const admin = { preHandler: guards.admin };
  api.get(
    '/user/',
    { ...admin, schema: doc('users', 'list users', { querystring: userPageQuerySchema, data: adminUserPageSchema }) },
    async (request) => ok(await listUsers(ctx, parseInput(userPageQuerySchema, request.query))),
  );
  api.get(
    '/user/search',
    { ...admin, schema: doc('users', 'search users', { querystring: userSearchQuerySchema, data: adminUserPageSchema }) },
    async (request) => ok(await searchUsers(ctx, parseInput(userSearchQuerySchema, request.query))),
  );
  api.get(
    '/user/:id',
    { ...admin, schema: doc('users', 'get user', { params: userIdParamsSchema, data: adminUserDetailSchema }) },
    async (request) => {
      const { id } = parseInput(userIdParamsSchema, request.params);
      return ok(await getUser(ctx, authOf(request), id));
    },
  );
  api.post(
    '/user/',
    { ...admin, schema: doc('users', 'create user', { body: createUserSchema, data: createdUserSchema }) },
    async (request) => {
      const created = await createUser(ctx, authOf(request), parseInput(createUserSchema, request.body));
      return ok(created, '用户账户创建成功！');
    },
  );
  api.put('/user/', { ...admin, schema: doc('users', 'update user', { body: updateUserSchema, data: noData }) }, async (request) => {
    await updateUser(ctx, authOf(request), parseInput(updateUserSchema, request.body));
    return ok(null, '用户信息更新成功！');
  });
  api.post(
    '/user/manage',
    { ...admin, schema: doc('users', 'manage user', { body: manageUserSchema, data: managedUserSchema }) },
    async (request) => {
      const { id, action } = parseInput(manageUserSchema, request.body);
      return ok(await manageUser(ctx, authOf(request), id, action), '操作成功完成！');
    },
  );
}
