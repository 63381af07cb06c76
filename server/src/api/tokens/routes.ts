import { doc } from '../openapi.js';
import type { FastifyInstance } from 'fastify';
import { noData, tokenPageSchema, tokenSchema } from '@modelgate/shared';
import { z } from 'zod';
import { ok } from '../../lib/envelope.js';
import { authOf } from '../auth/guards.js';
import type { RouteDeps } from '../route-deps.js';
import { parseInput } from '../validate.js';
import { createTokens } from './create-tokens.js';
import { deleteToken } from './delete-token.js';
import { findTokens, searchTokens } from './find-tokens.js';
import {
  createTokenSchema,
  listTokensQuery,
  searchTokensQuery,
  tokenIdParams,
  updateTokenQuery,
  updateTokenSchema,
  updateTokenStatusSchema,
} from './schemas.js';
import { findOwnToken } from './token-rules.js';
import { updateToken, updateTokenStatus } from './update-token.js';

/** Tokens of the signed-in user; another user's token answers 404. */
export function registerTokenRoutes(api: FastifyInstance, { ctx, guards }: RouteDeps): void {
  const user = { preHandler: guards.user };

  api.get(
    '/token/',
    { ...user, schema: doc('tokens', 'find tokens', { querystring: listTokensQuery, data: tokenPageSchema }) },
    async (request) => ok(await findTokens(ctx, authOf(request).id, parseInput(listTokensQuery, request.query))),
  );
  api.get(
    '/token/search',
    { ...user, schema: doc('tokens', 'search tokens', { querystring: searchTokensQuery, data: tokenPageSchema }) },
    async (request) => ok(await searchTokens(ctx, authOf(request).id, parseInput(searchTokensQuery, request.query))),
  );
  api.get(
    '/token/:id',
    { ...user, schema: doc('tokens', 'find own token', { params: tokenIdParams, data: tokenSchema }) },
    async (request) => ok(await findOwnToken(ctx, authOf(request).id, parseInput(tokenIdParams, request.params).id)),
  );
  api.post(
    '/token/',
    { ...user, schema: doc('tokens', 'create tokens', { body: createTokenSchema, data: z.array(tokenSchema) }) },
    async (request) =>
      ok(
        await createTokens(ctx, authOf(request), parseInput(createTokenSchema, request.body)),
        '令牌创建成功，请在列表页面点击复制获取令牌！',
      ),
  );
  api.put(
    '/token/',
    {
      ...user,
      schema: doc('tokens', 'update token (status_only: its status alone)', {
        querystring: updateTokenQuery,
        body: z.union([updateTokenSchema, updateTokenStatusSchema]),
        data: tokenSchema,
      }),
    },
    async (request) => {
      const auth = authOf(request);
      if (parseInput(updateTokenQuery, request.query).status_only) {
        const { id, status } = parseInput(updateTokenStatusSchema, request.body);
        return ok(await updateTokenStatus(ctx, auth, id, status), '令牌更新成功！');
      }
      return ok(await updateToken(ctx, auth, parseInput(updateTokenSchema, request.body)), '令牌更新成功！');
    },
  );
  api.delete('/token/:id', { ...user, schema: doc('tokens', 'delete token', { params: tokenIdParams, data: noData }) }, async (request) => {
    await deleteToken(ctx, authOf(request).id, parseInput(tokenIdParams, request.params).id);
    return ok(null);
  });
}
