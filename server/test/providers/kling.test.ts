import { createHmac } from 'node:crypto';
import { Agent } from 'undici';
import { afterAll, describe, expect, it } from 'vitest';
import { klingAdapter } from '../../src/relay/providers/kling/index.js';
import { klingBase, klingCredentials, klingHeaders, klingToken } from '../../src/relay/providers/kling/api.js';
import { klingDownloadRequest, klingStateOf, klingSubmitRequest } from '../../src/relay/providers/kling/video.js';
import type { UpstreamTarget } from '../../src/relay/providers/types.js';

const dispatcher = new Agent();
afterAll(async () => dispatcher.close());
const target = (key = 'ak-1|sk-1', baseURL = 'https://api-singapore.klingai.com'): UpstreamTarget => ({
  baseURL,
  key,
  headers: {},
  other: '',
  dispatcher,
});
const decode = (part: string) => JSON.parse(Buffer.from(part, 'base64url').toString('utf8')) as Record<string, unknown>;

describe('Kling (type 50)', () => {
  it('signs an HS256 JWT with the secret key: iss the access key, valid 30 minutes from 5 seconds ago', () => {
    const token = klingToken('ak-1', 'sk-1', 1_700_000_000);
    const [header, payload, signature] = token.split('.');
    expect(decode(header!)).toEqual({ alg: 'HS256', typ: 'JWT' });
    expect(decode(payload!)).toEqual({ iss: 'ak-1', exp: 1_700_001_800, nbf: 1_699_999_995 });
    expect(signature).toBe(createHmac('sha256', 'sk-1').update(`${header}.${payload}`).digest('base64url'));
    expect(klingHeaders(target()).authorization).toMatch(/^Bearer [\w-]+\.[\w-]+\.[\w-]+$/);
    expect(klingHeaders(target('no-secret')).authorization).toBeUndefined();
  });

  it('reads the key as AccessKey|SecretKey and checks it on the channel form', () => {
    expect(klingCredentials(' ak | sk ')).toEqual({ accessKey: 'ak', secretKey: 'sk' });
    for (const bad of ['ak', 'ak|', '|sk', 'a|b|c']) expect(klingCredentials(bad)).toBeNull();
    expect(klingAdapter.validateChannel('ak|sk\nak2|sk2')).toBeNull();
    expect(klingAdapter.validateChannel('ak-only')).toBe('Kling 的密钥格式为 AccessKey|SecretKey');
    expect(klingBase('https://api-singapore.klingai.com/v1/')).toBe('https://api-singapore.klingai.com');
  });

  it('builds text2video and image2video bodies', () => {
    expect(
      klingSubmitRequest(target(), 'kling-v1-6', { prompt: 'p', seconds: 10, aspectRatio: '9:16', negativePrompt: 'blur' }),
    ).toMatchObject({
      endpoint: 'text2video',
      request: {
        url: 'https://api-singapore.klingai.com/v1/videos/text2video',
        body: { model_name: 'kling-v1-6', prompt: 'p', duration: '10', aspect_ratio: '9:16', negative_prompt: 'blur' },
      },
    });
    const image = klingSubmitRequest(target(), 'kling-v1-6', {
      prompt: 'p',
      seconds: 5,
      aspectRatio: '16:9',
      image: { mimeType: 'image/png', data: 'AAAA' },
    });
    expect(image.endpoint).toBe('image2video');
    expect(image.request.body).toEqual({ model_name: 'kling-v1-6', prompt: 'p', duration: '5', image: 'AAAA' });
  });

  it('maps task states to video states', () => {
    expect(klingStateOf('text2video/1', { task_status: 'submitted' })).toMatchObject({ status: 'IN_PROGRESS', progress: '10%' });
    expect(klingStateOf('text2video/1', { task_status: 'processing' })).toMatchObject({ status: 'IN_PROGRESS', progress: '50%' });
    expect(klingStateOf('text2video/1', { task_status: 'failed', task_status_msg: 'blocked' })).toMatchObject({
      status: 'FAILURE',
      failReason: 'blocked',
    });
    expect(klingStateOf('text2video/1', { task_status: 'failed' })).toMatchObject({ status: 'FAILURE', failReason: 'Kling 生成失败' });
    expect(
      klingStateOf('text2video/1', { task_status: 'succeed', task_result: { videos: [{ url: 'https://cdn.klingai.com/v.mp4' }] } }),
    ).toMatchObject({ status: 'SUCCESS', uris: ['https://cdn.klingai.com/v.mp4'] });
    expect(klingStateOf('text2video/1', { task_status: 'succeed', task_result: { videos: [] } })).toMatchObject({
      status: 'FAILURE',
      failReason: 'Kling 没有返回视频',
    });
  });

  it('downloads a video with no credential, even on the channel host, and refuses a URI that is not http(s)', () => {
    expect(klingDownloadRequest(target(), 'https://api-singapore.klingai.com/v.mp4')).toEqual({
      url: 'https://api-singapore.klingai.com/v.mp4',
      method: 'GET',
      headers: {},
      body: '',
    });
    expect(() => klingDownloadRequest(target(), 'file:///etc/passwd')).toThrow();
    expect(() => klingDownloadRequest(target(), 'not a url')).toThrow();
  });
});
