import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { signingKey, signRequest, uriEncode } from '../../src/relay/providers/aws-bedrock/sigv4.js';

const suite = {
  accessKeyId: 'AKIDEXAMPLE',
  secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY',
  region: 'us-east-1',
  service: 'service',
  now: new Date('2015-08-30T12:36:00Z'),
};

describe('SigV4 against published vectors', () => {
  it('derives the signing key of the AWS docs example (iam, 20120215)', () => {
    expect(signingKey('wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY', '20120215', 'us-east-1', 'iam').toString('hex')).toBe(
      'f4780e2d9f65fa895f9c67b32ce1baf0b0d8a43505a000a1a9e090d414db404d',
    );
  });

  it('signs the test suite get-vanilla request', () => {
    const signed = signRequest({ ...suite, method: 'GET', url: 'https://example.amazonaws.com/', headers: {}, body: '' });
    expect(signed.canonicalRequest).toBe(
      'GET\n/\n\nhost:example.amazonaws.com\nx-amz-date:20150830T123600Z\n\nhost;x-amz-date\ne3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
    );
    expect(signed.stringToSign).toBe(
      'AWS4-HMAC-SHA256\n20150830T123600Z\n20150830/us-east-1/service/aws4_request\nbb579772317eb040ac9ed261061d46c1f17a8133879d6129b6e1c25292927e63',
    );
    expect(signed.authorization).toBe(
      'AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, SignedHeaders=host;x-amz-date, Signature=5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31',
    );
    expect(signed.headers['x-amz-date']).toBe('20150830T123600Z');
  });

  it('signs the test suite post-vanilla and get-vanilla-query-order-key-case requests', () => {
    expect(signRequest({ ...suite, method: 'POST', url: 'https://example.amazonaws.com/', headers: {}, body: '' }).signature).toBe(
      '5da7c1a2acd57cee7505fc6676e4e544621c30862966e37dddb68e92efbe5d6b',
    );
    expect(
      signRequest({ ...suite, method: 'GET', url: 'https://example.amazonaws.com/?Param2=value2&Param1=value1', headers: {}, body: '' })
        .signature,
    ).toBe('b97d918cfa904a5beff61c982a1b6f458b799221646efd99d3219ec94cdf2500');
  });

  it('matches botocore 1.43 on a Bedrock InvokeModel request (double-encoded model id in the canonical URI)', () => {
    const body = '{"anthropic_version":"bedrock-2023-05-31","messages":[{"role":"user","content":"Hello"}],"max_tokens":64}';
    const signed = signRequest({
      method: 'POST',
      url: 'https://bedrock-runtime.us-east-1.amazonaws.com/model/anthropic.claude-3-5-sonnet-20241022-v2%3A0/invoke',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body,
      region: 'us-east-1',
      service: 'bedrock',
      accessKeyId: 'AKIDEXAMPLE',
      secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY',
      now: new Date('2024-11-05T08:30:00Z'),
    });
    expect(signed.canonicalRequest.split('\n').slice(0, 2)).toEqual([
      'POST',
      '/model/anthropic.claude-3-5-sonnet-20241022-v2%253A0/invoke',
    ]);
    expect(signed.canonicalRequest.endsWith(createHash('sha256').update(body).digest('hex'))).toBe(true);
    expect(signed.authorization).toBe(
      'AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20241105/us-east-1/bedrock/aws4_request, SignedHeaders=accept;content-type;host;x-amz-date, Signature=9944715b4c658056ce95496b123fbc2b7150ef7fc7efab8be898d077bbe387de',
    );
  });

  it('adds the session token to the signed headers and encodes reserved characters', () => {
    const signed = signRequest({
      ...suite,
      method: 'GET',
      url: 'https://example.amazonaws.com/',
      headers: {},
      body: '',
      sessionToken: 'TOKEN',
    });
    expect(signed.headers['x-amz-security-token']).toBe('TOKEN');
    expect(signed.authorization).toContain('SignedHeaders=host;x-amz-date;x-amz-security-token');
    expect(uriEncode("a b:c/d*'~")).toBe('a%20b%3Ac%2Fd%2A%27~');
  });
});
