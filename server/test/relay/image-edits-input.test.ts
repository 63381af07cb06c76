import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRelayChannel, createRelayToken, createRelayUser, flushRelay } from '../helpers/relay-fixtures.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { startFixtureUpstream, type FixtureUpstream } from '../providers/helpers/fixture-upstream.js';

const pngBytes = Buffer.from(
  '89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8cfc0f01f0005000201a0f4e2a20000000049454e44ae426082',
  'hex',
);

type Part = [name: string, value: string | Buffer, filename?: string];

/** A multipart body from parts (a filename makes a file part). */
function multipart(parts: Part[], boundary = 'IMGB'): Buffer {
  const chunks = parts.map(([name, value, filename]) =>
    Buffer.concat([
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="${name}"${filename ? `; filename="${filename}"\r\nContent-Type: image/png` : ''}\r\n\r\n`,
      ),
      Buffer.isBuffer(value) ? value : Buffer.from(value),
      Buffer.from('\r\n'),
    ]),
  );
  return Buffer.concat([...chunks, Buffer.from(`--${boundary}--\r\n`)]);
}

/**
 * Bad input to /v1/images/edits and /variations: OpenAI-shaped 4xx, nothing sent upstream, nothing
 * billed, and the server keeps serving good forms.
 */
describe('image edits and variations refuse bad input', () => {
  let server: TestServer;
  let upstream: FixtureUpstream;
  let apiKey: string;
  let userId: number;

  beforeAll(async () => {
    upstream = await startFixtureUpstream();
    server = await startTestServer({ env: { MAX_REQUEST_BODY_MB: '1' } });
    await createRelayChannel(server.ctx, { key: 'sk-upstream', baseURL: upstream.url, models: ['dall-e-2', 'gpt-image-1'] });
    userId = await createRelayUser(server.ctx);
    apiKey = (await createRelayToken(server.ctx, userId)).apiKey;
  });
  afterAll(async () => {
    await server?.stop();
    await upstream?.close();
  });

  const post = (kind: string, body: Buffer | string, contentType = 'multipart/form-data; boundary=IMGB') =>
    fetch(`${server.url}/v1/images/${kind}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': contentType },
      body: typeof body === 'string' ? body : new Uint8Array(body),
    });

  const expectRefusal = async (response: Response, status: number, code?: string) => {
    expect(response.status).toBe(status);
    const body = (await response.json()) as { error: { message: string; type: string; code: string } };
    expect(body).toEqual({
      error: { message: expect.stringMatching(/.+/), type: 'invalid_request_error', param: null, code: code ?? expect.any(String) },
    });
    return body.error;
  };

  it('answers 400 with a clear code for each missing or wrong field', async () => {
    const image: Part = ['image', pngBytes, 'a.png'];
    const cases: Array<[string, string, Part[], string]> = [
      [
        'edits',
        'no image',
        [
          ['prompt', 'x'],
          ['model', 'dall-e-2'],
        ],
        'image_required',
      ],
      ['variations', 'no image', [['model', 'dall-e-2']], 'image_required'],
      ['edits', 'no prompt', [image, ['model', 'dall-e-2']], 'prompt_required'],
      ['edits', 'blank prompt', [image, ['prompt', '   ']], 'prompt_required'],
      ['edits', 'n = 0', [image, ['prompt', 'x'], ['n', '0']], 'invalid_n'],
      ['edits', 'n = 11', [image, ['prompt', 'x'], ['n', '11']], 'invalid_n'],
      ['variations', 'n not a number', [image, ['n', 'many']], 'invalid_n'],
      ['variations', 'n fractional', [image, ['n', '1.5']], 'invalid_n'],
      ['edits', 'an unknown file field', [image, ['prompt', 'x'], ['photo', pngBytes, 'b.png']], 'invalid_file_field'],
      ['edits', 'an unknown file field first', [['photo', pngBytes, 'b.png'], image, ['prompt', 'x']], 'invalid_file_field'],
      ['variations', 'two images', [image, ['image', pngBytes, 'b.png']], 'too_many_images'],
      ['variations', 'a mask', [image, ['mask', pngBytes, 'm.png']], 'invalid_file_field'],
      [
        'edits',
        '17 images',
        [...Array.from({ length: 17 }, (_, i): Part => ['image[]', pngBytes, `${i}.png`]), ['prompt', 'x'], ['model', 'gpt-image-1']],
        'too_many_images',
      ],
    ];
    for (const [kind, name, parts, code] of cases) {
      const response = await post(kind, multipart(parts));
      expect(response.status, `${kind}: ${name}`).toBe(400);
      await expectRefusal(response, 400, code);
    }
    expect(upstream.requests).toHaveLength(0);
  });

  it('answers 400 for JSON, a missing boundary, truncated and garbage bodies', async () => {
    const good = multipart([
      ['image', pngBytes, 'a.png'],
      ['prompt', 'x'],
    ]);
    for (const kind of ['edits', 'variations']) {
      await expectRefusal(await post(kind, JSON.stringify({ prompt: 'x', image: 'a.png' }), 'application/json'), 400, 'invalid_request');
      await expectRefusal(await post(kind, good, 'multipart/form-data'), 400);
      await expectRefusal(await post(kind, good.subarray(0, good.length - 30)), 400, 'invalid_multipart');
      await expectRefusal(await post(kind, 'definitely not multipart'), 400);
      await expectRefusal(await post(kind, ''), 400);
    }
    // A content type nobody parses is refused too (never a 5xx).
    const odd = await post('edits', 'x', 'text/plain');
    expect(odd.status).toBeGreaterThanOrEqual(400);
    expect(odd.status).toBeLessThan(500);
    expect(upstream.requests).toHaveLength(0);
  });

  it('answers 413 when the files together pass MAX_REQUEST_BODY_MB, or a field is too long', async () => {
    const half = Buffer.alloc(600 * 1024, 1);
    const response = await post(
      'edits',
      multipart([
        ['image[]', half, 'a.png'],
        ['image[]', half, 'b.png'],
        ['prompt', 'x'],
      ]),
    );
    await expectRefusal(response, 413, 'payload_too_large');
    await expectRefusal(
      await post(
        'edits',
        multipart([
          ['image', pngBytes, 'a.png'],
          ['prompt', 'p'.repeat(200 * 1024)],
        ]),
      ),
      413,
      'payload_too_large',
    );
    expect(upstream.requests).toHaveLength(0);
  });

  it('bills nothing for a refusal and still serves a good form', async () => {
    upstream.reply({
      status: 200,
      contentType: 'application/json',
      body: JSON.stringify({ created: 1, data: [{ url: 'https://img.example/1.png' }] }),
    });
    const ok = await post(
      'edits',
      multipart([
        ['image', pngBytes, 'a.png'],
        ['prompt', 'a cat'],
        ['model', 'dall-e-2'],
      ]),
    );
    expect(ok.status).toBe(200);
    expect(((await ok.json()) as { data: unknown[] }).data).toHaveLength(1);
    await flushRelay(server.ctx);
    const logs = await server.ctx.storage.db
      .selectFrom('logs')
      .select(['quota', 'model_name'])
      .where('type', '=', 2)
      .where('user_id', '=', userId)
      .execute();
    expect(logs.map((log) => ({ ...log, quota: Number(log.quota) }))).toEqual([{ quota: 10_000, model_name: 'dall-e-2' }]);
  });
});
