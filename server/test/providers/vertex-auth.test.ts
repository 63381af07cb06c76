import { createSign, generateKeyPairSync, verify } from 'node:crypto';
import { Agent } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UpstreamError } from '../../src/relay/errors.js';
import { parseVertexKey, type ServiceAccount } from '../../src/relay/providers/vertex/credentials.js';
import { createServiceAccountJwt } from '../../src/relay/providers/vertex/jwt.js';
import { VertexTokenCache } from '../../src/relay/providers/vertex/token.js';
import { readFixture, startFixtureUpstream, type FixtureUpstream } from './helpers/fixture-upstream.js';

const { privateKey, publicKey } = generateKeyPairSync('rsa', {
  modulusLength: 2048,
  privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  publicKeyEncoding: { type: 'spki', format: 'pem' },
});

let upstream: FixtureUpstream;
const dispatcher = new Agent();
beforeAll(async () => {
  upstream = await startFixtureUpstream();
});
afterAll(async () => {
  await upstream.close();
  await dispatcher.close();
});

const account = (tokenUri: string, email = 'relay@demo-project.iam.gserviceaccount.com'): ServiceAccount => ({
  project_id: 'demo-project',
  private_key_id: 'key-id-123',
  private_key: privateKey,
  client_email: email,
  token_uri: tokenUri,
});
const decode = (segment: string) => JSON.parse(Buffer.from(segment, 'base64url').toString('utf8'));
const tokenReply = () => upstream.reply({ status: 200, contentType: 'application/json', body: readFixture('vertex', 'token.json') });

describe('Vertex AI: service-account JWT', () => {
  it('signs {alg,typ,kid}.{iss,scope,aud,iat,exp} with RS256, verifiable with the public key', () => {
    const jwt = createServiceAccountJwt(account('https://oauth2.googleapis.com/token'), 1_700_000_000);
    const [header, claims, signature] = jwt.split('.');
    expect(decode(header!)).toEqual({ alg: 'RS256', typ: 'JWT', kid: 'key-id-123' });
    expect(decode(claims!)).toEqual({
      iss: 'relay@demo-project.iam.gserviceaccount.com',
      scope: 'https://www.googleapis.com/auth/cloud-platform',
      aud: 'https://oauth2.googleapis.com/token',
      iat: 1_700_000_000,
      exp: 1_700_003_600,
    });
    expect(verify('RSA-SHA256', Buffer.from(`${header}.${claims}`), publicKey, Buffer.from(signature!, 'base64url'))).toBe(true);
    // RS256 (PKCS#1 v1.5) is deterministic: an independent signer gives the same bytes.
    const expected = createSign('RSA-SHA256').update(`${header}.${claims}`).sign(privateKey).toString('base64url');
    expect(signature).toBe(expected);
    expect(verify('RSA-SHA256', Buffer.from(`${header}.${claims}x`), publicKey, Buffer.from(signature!, 'base64url'))).toBe(false);
  });

  it('reads a service-account JSON key, or treats other keys as API keys', () => {
    const json = JSON.stringify({
      type: 'service_account',
      project_id: 'p',
      private_key_id: 'k',
      private_key: privateKey,
      client_email: 'a@p.iam',
      client_id: '1',
    });
    expect(parseVertexKey(json)).toEqual({
      kind: 'service-account',
      account: {
        project_id: 'p',
        private_key_id: 'k',
        private_key: privateKey,
        client_email: 'a@p.iam',
        token_uri: 'https://oauth2.googleapis.com/token',
      },
    });
    expect(parseVertexKey(' AQ.vertex-api-key ')).toEqual({ kind: 'api-key', apiKey: 'AQ.vertex-api-key' });
    expect(() => parseVertexKey('{"project_id":"p"}')).toThrow('缺少');
    expect(() => parseVertexKey('{not json')).toThrow('服务账号 JSON');
  });
});

describe('Vertex AI: token exchange and cache', () => {
  it('exchanges the JWT at token_uri with the jwt-bearer grant and caches the token until shortly before expiry', async () => {
    let now = 1_700_000_000_000;
    const cache = new VertexTokenCache(() => now);
    const sa = account(`${upstream.url}/token`);
    const before = upstream.requests.length;
    tokenReply();
    expect(await cache.getAccessToken(sa, dispatcher)).toBe('ya29.c.vertex-test-token-1');
    const exchange = upstream.requests.at(-1)!;
    expect(exchange.method).toBe('POST');
    expect(exchange.url).toBe('/token');
    expect(exchange.headers['content-type']).toBe('application/x-www-form-urlencoded');
    const form = new URLSearchParams(exchange.rawBody.toString('utf8'));
    expect(form.get('grant_type')).toBe('urn:ietf:params:oauth:grant-type:jwt-bearer');
    const [header, claims, signature] = form.get('assertion')!.split('.');
    expect(decode(claims!)).toMatchObject({ aud: `${upstream.url}/token`, iat: 1_700_000_000, exp: 1_700_003_600 });
    expect(verify('RSA-SHA256', Buffer.from(`${header}.${claims}`), publicKey, Buffer.from(signature!, 'base64url'))).toBe(true);

    now += 50 * 60 * 1000; // 50 min later: still more than 5 min left of 3599 s.
    expect(await cache.getAccessToken(sa, dispatcher)).toBe('ya29.c.vertex-test-token-1');
    expect(upstream.requests.length - before).toBe(1);

    now += 6 * 60 * 1000; // 56 min: inside the refresh margin → a new exchange.
    upstream.reply({ status: 200, contentType: 'application/json', body: '{"access_token":"ya29.second","expires_in":3600}' });
    expect(await cache.getAccessToken(sa, dispatcher)).toBe('ya29.second');
    expect(upstream.requests.length - before).toBe(2);
    expect(decode(new URLSearchParams(upstream.requests.at(-1)!.rawBody.toString()).get('assertion')!.split('.')[1]!).iat).toBe(
      1_700_003_360,
    );
  });

  it('shares one in-flight exchange among concurrent callers, per service account', async () => {
    const cache = new VertexTokenCache();
    const before = upstream.requests.length;
    tokenReply();
    upstream.reply({ status: 200, contentType: 'application/json', body: '{"access_token":"ya29.other-account","expires_in":3600}' });
    const first = account(`${upstream.url}/token`);
    const second = account(`${upstream.url}/token`, 'batch@demo-project.iam.gserviceaccount.com');
    const tokens = await Promise.all([
      ...Array.from({ length: 5 }, () => cache.getAccessToken(first, dispatcher)),
      cache.getAccessToken(second, dispatcher),
    ]);
    expect(upstream.requests.length - before).toBe(2);
    expect(new Set(tokens.slice(0, 5))).toEqual(new Set(['ya29.c.vertex-test-token-1']));
    expect(tokens[5]).toBe('ya29.other-account');
  });

  it('does not cache a rejected exchange: the error is a 401 UpstreamError and the next call retries', async () => {
    const cache = new VertexTokenCache();
    const sa = account(`${upstream.url}/token`);
    upstream.reply({ status: 400, contentType: 'application/json', body: readFixture('vertex', 'token-error.json') });
    const error = await cache.getAccessToken(sa, dispatcher).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(UpstreamError);
    expect(error).toMatchObject({
      status: 401,
      retryable: true,
      upstreamCode: 'invalid_grant',
      message: 'Vertex AI 获取访问令牌失败：Invalid JWT Signature.',
    });
    tokenReply();
    expect(await cache.getAccessToken(sa, dispatcher)).toBe('ya29.c.vertex-test-token-1');
  });
});
