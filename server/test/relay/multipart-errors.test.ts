import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockOpenAi, type MockOpenAi } from '../helpers/mock-openai.js';
import { createRelayChannel, createRelayToken, createRelayUser } from '../helpers/relay-fixtures.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { storageKinds } from '../helpers/test-storage.js';

const part = (boundary: string, name: string, value: string, filename?: string) =>
  `--${boundary}\r\nContent-Disposition: form-data; name="${name}"${filename ? `; filename="${filename}"\r\nContent-Type: audio/wav` : ''}\r\n\r\n${value}\r\n`;

/** Sends raw bytes and reads the whole answer (or '' when the server closes without one). */
function rawRequest(url: string, head: string, body: Buffer, endEarly = false): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    let answer = '';
    socket.on('data', (chunk) => {
      answer += chunk.toString('latin1');
    });
    socket.on('error', (error) => ((error as NodeJS.ErrnoException).code === 'ECONNRESET' ? resolve(answer) : reject(error)));
    socket.on('close', () => resolve(answer));
    socket.write(head);
    socket.write(body);
    if (endEarly) socket.end();
  });
}

describe.each(storageKinds())('malformed multipart to the audio routes on %s', (kind) => {
  let server: TestServer;
  let mock: MockOpenAi;
  let apiKey: string;

  beforeAll(async () => {
    mock = await startMockOpenAi();
    server = await startTestServer({ kind, env: { MAX_REQUEST_BODY_MB: '1' } });
    await createRelayChannel(server.ctx, { key: 'healthy', baseURL: mock.url, models: ['whisper-1'] });
    apiKey = (await createRelayToken(server.ctx, await createRelayUser(server.ctx))).apiKey;
  });
  afterAll(async () => {
    await server.stop();
    await mock.close();
  });

  const post = (endpoint: string, contentType: string, body: string) =>
    fetch(`${server.url}/v1/audio/${endpoint}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': contentType },
      body,
    });

  const expectOpenAiError = async (response: Response, status: number) => {
    expect(response.status).toBe(status);
    const body = await response.json();
    expect(body).toEqual({
      error: { message: expect.stringMatching(/.+/), type: 'invalid_request_error', param: null, code: expect.any(String) },
    });
  };

  it('answers 400 in OpenAI error shape for truncated, wrong-boundary, boundary-less, malformed and empty bodies', async () => {
    const good = part('B', 'model', 'whisper-1') + part('B', 'file', 'RIFFfakewav-data', 'a.wav');
    const bodies: Array<[string, string]> = [
      ['truncated inside the file', good.slice(0, good.length - 8)],
      ['no closing boundary', good],
      ['wrong boundary', `${good}--B--\r\n`],
      ['malformed part header', '--B\r\nContent-Disposition form-data name\r\n\r\nxx\r\n--B--\r\n'],
      ['garbage', 'this is not multipart at all'],
      ['empty', ''],
    ];
    for (const endpoint of ['transcriptions', 'translations']) {
      for (const [name, body] of bodies) {
        const contentType = name === 'wrong boundary' ? 'multipart/form-data; boundary=OTHER' : 'multipart/form-data; boundary=B';
        const response = await post(endpoint, contentType, body);
        expect(response.status, `${endpoint}: ${name}`).toBe(400);
        await expectOpenAiError(response, 400);
      }
      await expectOpenAiError(await post(endpoint, 'multipart/form-data', good), 400);
    }
  });

  it('answers 413 for a file over the size limit, and still serves a good form', async () => {
    const big = part('B', 'model', 'whisper-1') + part('B', 'file', 'x'.repeat(1024 * 1024 + 10), 'a.wav') + '--B--\r\n';
    const response = await post('transcriptions', 'multipart/form-data; boundary=B', big);
    expect(response.status).toBe(413);
    expect((await response.json()).error.code).toEqual(expect.any(String));
    const ok = await post(
      'transcriptions',
      'multipart/form-data; boundary=B',
      `${part('B', 'model', 'whisper-1')}${part('B', 'file', 'RIFFfakewav', 'a.wav')}--B--\r\n`,
    );
    expect(ok.status).toBe(200);
  });

  it('a client that stops sending mid-body gets a 400 or a closed connection, never a 500', async () => {
    const body = Buffer.from(part('B', 'model', 'whisper-1') + part('B', 'file', 'RIFF'.repeat(100), 'a.wav').slice(0, 200));
    const head = `POST /v1/audio/transcriptions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${apiKey}\r\nContent-Type: multipart/form-data; boundary=B\r\nContent-Length: ${body.length + 500}\r\n\r\n`;
    const answer = await rawRequest(server.url, head, body, true);
    expect(answer === '' || answer.startsWith('HTTP/1.1 400')).toBe(true);
    // The server is still there.
    expect((await post('transcriptions', 'multipart/form-data; boundary=B', 'x')).status).toBe(400);
  });
});
