import { expect } from 'vitest';
import { ApiClient } from './api-client.js';
import type { TestServer } from './test-server.js';

export const rootUsername = 'root';
export const rootPassword = 'root-pass-123';

export interface LoggedIn {
  client: ApiClient;
  userId: number;
}

/** Signs in through POST /api/user/login and sets client.userId so New-Api-User is sent. */
export async function login(client: ApiClient, username: string, password: string): Promise<LoggedIn> {
  const res = await client.post('/api/user/login', { username, password });
  expect(res.status, res.text).toBe(200);
  client.userId = res.body.data.id;
  return { client, userId: res.body.data.id };
}

/** Runs first-run setup (root / root-pass-123) and returns a client signed in as root. */
export async function setupRootAndLogin(server: TestServer, client: ApiClient = server.client()): Promise<LoggedIn> {
  const res = await client.post('/api/setup', {
    username: rootUsername,
    password: rootPassword,
    confirmPassword: rootPassword,
    SelfUseModeEnabled: false,
    DemoSiteEnabled: false,
  });
  expect(res.status, res.text).toBe(200);
  return login(client, rootUsername, rootPassword);
}

/**
 * Creates a user through POST /api/user/ as `creator` (role 1 or 10) and returns a client signed in
 * as the new user. The password is `${username}-pass`, padded to 8 characters.
 */
export async function createUserAndLogin(
  server: TestServer,
  creator: ApiClient,
  username: string,
  role: 1 | 10 = 1,
  client: ApiClient = server.client(),
): Promise<LoggedIn & { password: string }> {
  const password = `${username}-pass`.padEnd(8, 'x');
  const created = await creator.post('/api/user/', { username, password, role });
  expect(created.status, created.text).toBe(200);
  return { ...(await login(client, username, password)), password };
}

/** Keeps every response body `client` receives, for scans such as "no password in any response". */
export function recordResponseBodies(client: ApiClient, bodies: string[]): ApiClient {
  const send = client.request.bind(client);
  client.request = async (...args: Parameters<ApiClient['request']>) => {
    const res = await send(...args);
    bodies.push(res.text);
    return res;
  };
  return client;
}
