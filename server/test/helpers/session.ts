import bcrypt from 'bcryptjs';
import { signSession, sessionCookieName } from '../../src/lib/session.js';
import { insertReturningId, nowSeconds } from '../../src/db/index.js';
import type { ApiClient } from './api-client.js';
import type { TestServer } from './test-server.js';

export interface TestUserOptions {
  username: string;
  role?: number;
  group?: string;
  quota?: number;
  password?: string;
}

/**
 * Inserts a user row and returns a client signed in as that user: the session cookie is signed
 * with the server's own secret (the same cookie POST /api/user/login would set).
 */
export async function signedInClient(server: TestServer, options: TestUserOptions): Promise<{ client: ApiClient; userId: number }> {
  const userId = await insertReturningId(server.ctx.storage, 'users', {
    username: options.username,
    password: bcrypt.hashSync(options.password ?? 'password123', 4),
    display_name: options.username,
    role: options.role ?? 1,
    status: 1,
    group: options.group ?? 'default',
    quota: options.quota ?? 0,
    created_time: nowSeconds(),
  });
  const client = server.client();
  client.cookie = `${sessionCookieName}=${signSession(server.ctx.config.sessionSecret, userId, 0)}`;
  client.userId = userId;
  return { client, userId };
}
