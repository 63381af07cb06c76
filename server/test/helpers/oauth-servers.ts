import { createHash, createHmac, randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'vitest';
import type { ApiClient, ApiResponse } from './api-client.js';

/**
 * Local servers speaking the sign-in providers' own protocols (GitHub's web flow, Linux DO
 * Connect, the new-api family's WeChat server), plus a Telegram widget signer, for API tests.
 */
export interface RecordedCall {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export interface ProviderServer {
  url: string;
  calls: RecordedCall[];
  close(): Promise<void>;
}

async function listen(
  handler: (req: http.IncomingMessage, body: string, res: http.ServerResponse) => void,
  calls: RecordedCall[],
): Promise<ProviderServer> {
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      calls.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, body });
      handler(req, body, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function json(res: http.ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

/** A provider that issues one-use codes for users and access tokens for those codes. */
class CodeBook<U> {
  private readonly codes = new Map<string, U>();
  private readonly tokens = new Map<string, U>();
  issue(user: U): string {
    const code = randomBytes(8).toString('hex');
    this.codes.set(code, user);
    return code;
  }
  redeem(code: string): string | null {
    const user = this.codes.get(code);
    if (!user) return null;
    this.codes.delete(code);
    const token = randomBytes(12).toString('hex');
    this.tokens.set(token, user);
    return token;
  }
  userOf(authorization: string | undefined): U | undefined {
    return this.tokens.get((authorization ?? '').replace(/^Bearer /, ''));
  }
}

export interface GitHubUser {
  id: number;
  login: string;
  name?: string;
  email?: string;
}

/** GitHub: POST /login/oauth/access_token (JSON, answers 200 with an error for a bad code), GET /user. */
export async function startGitHubServer(clientId: string, clientSecret: string) {
  const book = new CodeBook<GitHubUser>();
  const calls: RecordedCall[] = [];
  const server = await listen((req, body, res) => {
    if (req.method === 'POST' && req.url === '/login/oauth/access_token') {
      const input = JSON.parse(body || '{}') as Record<string, string>;
      if (input.client_id !== clientId || input.client_secret !== clientSecret)
        return json(res, 200, { error: 'incorrect_client_credentials' });
      const token = book.redeem(input.code ?? '');
      if (!token) return json(res, 200, { error: 'bad_verification_code', error_description: 'The code passed is incorrect or expired.' });
      return json(res, 200, { access_token: token, token_type: 'bearer', scope: 'user:email' });
    }
    if (req.method === 'GET' && req.url === '/user') {
      const user = book.userOf(req.headers.authorization);
      return user ? json(res, 200, user) : json(res, 401, { message: 'Bad credentials' });
    }
    json(res, 404, { message: 'Not Found' });
  }, calls);
  return { ...server, issueCode: (user: GitHubUser) => book.issue(user) };
}

export interface LinuxDoUser {
  id: number;
  username: string;
  name?: string;
  active?: boolean;
  silenced?: boolean;
  trust_level?: number;
}

/** Linux DO Connect: POST /oauth2/token (form, HTTP Basic client auth), GET /api/user. */
export async function startLinuxDoServer(clientId: string, clientSecret: string) {
  const book = new CodeBook<LinuxDoUser>();
  const calls: RecordedCall[] = [];
  const server = await listen((req, body, res) => {
    if (req.method === 'POST' && req.url === '/oauth2/token') {
      const basic = Buffer.from(`${clientId}:${clientSecret}`).toString('base64');
      if (req.headers.authorization !== `Basic ${basic}`) return json(res, 401, { error: 'invalid_client' });
      const form = new URLSearchParams(body);
      if (form.get('grant_type') !== 'authorization_code') return json(res, 400, { error: 'unsupported_grant_type' });
      const token = book.redeem(form.get('code') ?? '');
      if (!token) return json(res, 400, { error: 'invalid_grant' });
      return json(res, 200, { access_token: token, token_type: 'Bearer', expires_in: 3600 });
    }
    if (req.method === 'GET' && req.url === '/api/user') {
      const user = book.userOf(req.headers.authorization);
      return user ? json(res, 200, { active: true, silenced: false, trust_level: 1, ...user }) : json(res, 401, { error: 'invalid_token' });
    }
    json(res, 404, { error: 'not_found' });
  }, calls);
  return { ...server, issueCode: (user: LinuxDoUser) => book.issue(user) };
}

/**
 * The WeChat server of the new-api family: GET /api/wechat/user?code= with the server token as
 * Authorization answers {success, message, data: openid}; a code is valid 3 minutes on its clock.
 */
export async function startWeChatServer(serverToken: string) {
  const codes = new Map<string, { openid: string; issuedAt: number }>();
  const clock = { now: Date.now() };
  const calls: RecordedCall[] = [];
  const server = await listen((req, _body, res) => {
    const url = new URL(req.url ?? '/', 'http://local');
    if (req.method !== 'GET' || url.pathname !== '/api/wechat/user') return json(res, 404, { success: false, message: 'not found' });
    if (req.headers.authorization !== serverToken)
      return json(res, 200, { success: false, message: '无权进行此操作，未登录或 token 无效' });
    const entry = codes.get(url.searchParams.get('code') ?? '');
    if (!entry || clock.now - entry.issuedAt > 3 * 60_000) return json(res, 200, { success: false, message: '验证码错误或已过期' });
    codes.delete(url.searchParams.get('code') ?? '');
    json(res, 200, { success: true, message: '', data: entry.openid });
  }, calls);
  return {
    ...server,
    clock,
    issueCode(openid: string): string {
      const code = String(100000 + Math.floor(Math.random() * 900000));
      codes.set(code, { openid, issuedAt: clock.now });
      return code;
    },
  };
}

/** The login widget's fields for `user`, signed as Telegram signs them for `botToken`. */
export function signTelegramLogin(botToken: string, user: Record<string, string | number>): Record<string, string> {
  const fields = Object.fromEntries(Object.entries(user).map(([key, value]) => [key, String(value)]));
  const checkString = Object.keys(fields)
    .sort()
    .map((key) => `${key}=${fields[key]}`)
    .join('\n');
  const secret = createHash('sha256').update(botToken).digest();
  return { ...fields, hash: createHmac('sha256', secret).update(checkString).digest('hex') };
}

/** GET /api/oauth/state through `client`; returns the state and the cookie that binds it. */
export async function fetchOAuthState(client: ApiClient, aff = ''): Promise<{ state: string; cookie: string }> {
  const res = await client.get(`/api/oauth/state${aff ? `?aff=${aff}` : ''}`);
  expect(res.status, res.text).toBe(200);
  const line = res.headers.getSetCookie().find((c) => c.startsWith('oauth_state=')) ?? '';
  return { state: res.body.data as string, cookie: line.split(';')[0] ?? '' };
}

/** Calls the callback route as the console does, with the browser's session and state cookies. */
export async function callOAuthCallback(
  client: ApiClient,
  provider: string,
  query: Record<string, string>,
  stateCookie: string,
): Promise<ApiResponse> {
  const session = client.cookie;
  client.cookie = [session, stateCookie].filter(Boolean).join('; ');
  const res = await client.get(`/api/oauth/${provider}?${new URLSearchParams(query).toString()}`);
  // A new session cookie replaced the jar; otherwise drop the state cookie again.
  if (client.cookie.includes('oauth_state=')) client.cookie = session;
  return res;
}

/** The whole sign-in round: state, a code from the provider, the callback. */
export async function signInThrough(client: ApiClient, provider: string, code: string): Promise<ApiResponse> {
  const { state, cookie } = await fetchOAuthState(client);
  const res = await callOAuthCallback(client, provider, { code, state }, cookie);
  if (res.status === 200 && res.body.message !== 'bind') client.userId = res.body.data.id;
  return res;
}
