import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setOption } from '../helpers/relay-fixtures.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

describe('platform status and HTTP conventions', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => server.stop());

  it('serves the status object in the envelope with setup not done on a fresh database', async () => {
    const res = await server.client().get('/api/status');
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(true);
    expect(res.body.data).toMatchObject({
      setup: false,
      self_use_mode_enabled: false,
      demo_site_enabled: false,
      quota_per_unit: 500000,
      system_name: 'ModelGate',
    });
    expect(typeof res.body.data.start_time).toBe('number');
    expect(res.headers.get('x-request-id')).toMatch(/^[\w-]+$/);
  });

  it('serves the notice, the about page and the home page content as the stored text, to anyone', async () => {
    const client = server.client();
    for (const [path, key] of [
      ['/api/notice', 'Notice'],
      ['/api/about', 'About'],
      ['/api/home_page_content', 'HomePageContent'],
    ] as const) {
      expect((await client.get(path)).body).toEqual({ success: true, message: '', data: '' });
      await setOption(server.ctx, key, `# ${key}\n\n<b>hello</b>`);
      expect((await client.get(path)).body).toEqual({ success: true, message: '', data: `# ${key}\n\n<b>hello</b>` });
    }
  });

  it('echoes a sane incoming X-Request-Id and replaces an unsafe one', async () => {
    const client = server.client();
    expect((await client.get('/api/status', { headers: { 'X-Request-Id': 'abc-123' } })).headers.get('x-request-id')).toBe('abc-123');
    const replaced = (await client.get('/api/status', { headers: { 'X-Request-Id': 'bad id with spaces' } })).headers.get('x-request-id');
    expect(replaced).not.toBe('bad id with spaces');
  });

  it('answers unknown /api paths with a JSON 404 envelope and unknown /v1 paths OpenAI-shaped', async () => {
    const api = await server.client().get('/api/does-not-exist');
    expect(api.status).toBe(404);
    expect(api.body).toEqual({ success: false, message: expect.any(String), data: null });
    const relay = await server.client().post('/v1/unknown-endpoint', {});
    expect(relay.status).toBe(404);
    expect(relay.body.error).toMatchObject({ type: 'invalid_request_error', code: 'not_found' });
  });

  it('serves the console fallback page for deep links', async () => {
    const res = await server.client().get('/channel/edit/3');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/html');
  });
});
