import { createHash, createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { buildHunyuanChatRequest } from '../../src/relay/providers/hunyuan/request.js';
import { signTc3, tc3DateOf, tc3SigningKey } from '../../src/relay/providers/hunyuan/tc3.js';
import { emptyOptions, makeTarget } from './helpers/recorded-upstream.js';

/**
 * Tencent Cloud API 3.0 "签名方法 v3" worked example (CVM DescribeInstances, timestamp 1551113065),
 * https://cloud.tencent.com/document/api/213/30654. The current edition prints the SecretKey as 32
 * asterisks and publishes every intermediate value computed with that literal key: the payload and
 * canonical-request hashes, SecretDate, SecretService, SecretSigning and the Signature. (I could not
 * open the page itself here; the values are the ones two independent public test suites quote from
 * it, and they chain consistently.)
 */
const published = {
  secretId: 'AKIDz8krbsJ5yKBZQpn74WFkmLPx3*******',
  secretKey: '*'.repeat(32),
  payload: '{"Limit": 1, "Filters": [{"Values": ["\\u672a\\u547d\\u540d"], "Name": "instance-name"}]}',
  hashedPayload: '35e9c5b0e3ae67532d3c9f17ead6c90222632e5b1ff7f6e89887f1398934f064',
  hashedCanonicalRequest: '7019a55be8395899b900fb5564e4200d984910f34794a27cb3fb7d10ff6a1e84',
  secretSigning: 'b596b923aad85185e2d1f6659d2a062e0a86731226e021e61bfe06f7ed05f5af',
  signature: '10b1a37a7301a02ca19a647ad722d5e43b4b3cff309d421d85b46093f6ab6c4f',
};

const sha256 = (data: string) => createHash('sha256').update(data, 'utf8').digest('hex');
const hmac = (key: string | Buffer, data: string) => createHmac('sha256', key).update(data, 'utf8').digest();

describe('TC3-HMAC-SHA256 against the published example', () => {
  const signed = signTc3({
    secretId: published.secretId,
    secretKey: published.secretKey,
    service: 'cvm',
    host: 'cvm.tencentcloudapi.com',
    action: 'DescribeInstances',
    timestamp: 1551113065,
    body: published.payload,
    contentType: 'application/json; charset=utf-8',
  });

  it('builds the canonical request and string to sign of the docs', () => {
    expect(sha256(published.payload)).toBe(published.hashedPayload);
    expect(signed.canonicalRequest).toBe(
      'POST\n/\n\ncontent-type:application/json; charset=utf-8\nhost:cvm.tencentcloudapi.com\nx-tc-action:describeinstances\n\n' +
        `content-type;host;x-tc-action\n${published.hashedPayload}`,
    );
    expect(sha256(signed.canonicalRequest)).toBe(published.hashedCanonicalRequest);
    expect(signed.stringToSign).toBe(`TC3-HMAC-SHA256\n1551113065\n2019-02-25/cvm/tc3_request\n${published.hashedCanonicalRequest}`);
  });

  it('derives the published SecretSigning and Signature', () => {
    expect(signed.date).toBe('2019-02-25');
    expect(tc3SigningKey(published.secretKey, '2019-02-25', 'cvm').toString('hex')).toBe(published.secretSigning);
    expect(signed.signature).toBe(published.signature);
    expect(signed.authorization).toBe(
      `TC3-HMAC-SHA256 Credential=${published.secretId}/2019-02-25/cvm/tc3_request, SignedHeaders=content-type;host;x-tc-action, Signature=${published.signature}`,
    );
  });

  it('takes the credential date from the UTC day of the timestamp', () => {
    expect(tc3DateOf(1551139199)).toBe('2019-02-25');
    expect(tc3DateOf(1551139200)).toBe('2019-02-26');
  });
});

describe('a Hunyuan ChatCompletions request signed with an injected clock', () => {
  const nowMs = 1_717_749_316_789;
  const target = makeTarget('https://hunyuan.tencentcloudapi.com', '1300000000|AKIDhunyuanTest|hunyuanSecretKey');
  const built = buildHunyuanChatRequest(
    { messages: [{ role: 'user', content: '你好' }], temperature: 0.5 },
    { upstreamModel: 'hunyuan-lite', isStream: false, target, options: emptyOptions },
    nowMs,
  );

  it('matches a step-by-step node:crypto reference over the exact body text sent', () => {
    const body = built.body as string;
    expect(typeof body).toBe('string');
    expect(JSON.parse(body)).toEqual({
      Model: 'hunyuan-lite',
      Messages: [{ Role: 'user', Content: '你好' }],
      Stream: false,
      Temperature: 0.5,
    });
    expect(built.headers['x-tc-timestamp']).toBe('1717749316');
    // Independent reference: Tencent's four steps written out with node:crypto.
    const canonical = `POST\n/\n\ncontent-type:application/json\nhost:hunyuan.tencentcloudapi.com\nx-tc-action:chatcompletions\n\ncontent-type;host;x-tc-action\n${sha256(body)}`;
    const toSign = `TC3-HMAC-SHA256\n1717749316\n2024-06-07/hunyuan/tc3_request\n${sha256(canonical)}`;
    const key = hmac(hmac(hmac('TC3hunyuanSecretKey', '2024-06-07'), 'hunyuan'), 'tc3_request');
    const signature = hmac(key, toSign).toString('hex');
    expect(built.headers.authorization).toBe(
      `TC3-HMAC-SHA256 Credential=AKIDhunyuanTest/2024-06-07/hunyuan/tc3_request, SignedHeaders=content-type;host;x-tc-action, Signature=${signature}`,
    );
    expect(built.headers).toMatchObject({
      'content-type': 'application/json',
      'x-tc-action': 'ChatCompletions',
      'x-tc-version': '2023-09-01',
    });
  });

  it('changes the signature with the clock and the body', () => {
    const call = { upstreamModel: 'hunyuan-lite', isStream: false, target, options: emptyOptions };
    const later = buildHunyuanChatRequest({ messages: [{ role: 'user', content: '你好' }], temperature: 0.5 }, call, nowMs + 1000);
    const other = buildHunyuanChatRequest({ messages: [{ role: 'user', content: '您好' }], temperature: 0.5 }, call, nowMs);
    expect(later.headers.authorization).not.toBe(built.headers.authorization);
    expect(other.headers.authorization).not.toBe(built.headers.authorization);
  });
});
