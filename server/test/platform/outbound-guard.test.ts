import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { blockedCause, guardedAgent, isPublicAddress, outboundUrlProblem, parsePortRanges, type FetchGuard } from '../../src/lib/outbound-guard.js';

const guard: FetchGuard = { isEnabled: true, allowPrivateIp: false, allowedPorts: parsePortRanges(['80', '443', '8080', '8443'])! };

describe('the SSRF guard for callback URLs', () => {
  it.each([
    '127.0.0.1', '127.8.9.10', '10.0.0.1', '172.16.0.1', '172.31.255.255', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0',
    '224.0.0.1', '255.255.255.255', '198.18.0.1', '::1', '::', 'fe80::1', 'fd00::1', 'fc00::7', 'ff02::1', '::ffff:127.0.0.1',
    '::ffff:7f00:1', '::FFFF:A00:7', '64:ff9b::10.0.0.1', '64:ff9b::1', '2001:db8::1', 'not-an-ip', '',
  ])('%s is not public', (address) => {
    expect(isPublicAddress(address)).toBe(false);
  });

  it.each(['1.1.1.1', '8.8.8.8', '172.32.0.1', '100.128.0.1', '2606:4700:4700::1111', '::ffff:8.8.8.8', '64:ff9b::808:808'])('%s is public', (address) => {
    expect(isPublicAddress(address)).toBe(true);
  });

  it('reads allowed ports and ranges, and refuses anything else', () => {
    expect(parsePortRanges(['443', ' 8000 - 9000 '])).toEqual([[443, 443], [8000, 9000]]);
    for (const bad of [[0], ['0'], ['65536'], ['9000-80'], ['443,80'], [null], ['abc'], ['-1']]) expect(parsePortRanges(bad), JSON.stringify(bad)).toBeNull();
  });

  it('refuses what a callback URL may not be, and lets the rest through to the connection-time check', () => {
    expect(outboundUrlProblem('https://hooks.example.com/x', guard)).toBeNull();
    expect(outboundUrlProblem('http://hooks.example.com:8080/x', guard)).toBeNull();
    expect(outboundUrlProblem('https://8.8.8.8/x', guard)).toBeNull();
    expect(outboundUrlProblem('not a url', guard)).toBe('回调地址不是有效的 URL');
    expect(outboundUrlProblem('file:///etc/passwd', guard)).toBe('回调地址必须是 http(s) 地址');
    expect(outboundUrlProblem('gopher://hooks.example.com/', guard)).toBe('回调地址必须是 http(s) 地址');
    expect(outboundUrlProblem('https://hooks.example.com:22/x', guard)).toBe('回调地址的端口 22 不在允许的端口列表中');
    expect(outboundUrlProblem('https://a:b@hooks.example.com/x', guard)).toBe('回调地址不能包含用户名或密码');
    for (const url of ['http://127.0.0.1/', 'http://[::1]/', 'http://0x7f.1/', 'http://2130706433/', 'http://[::ffff:169.254.169.254]/', 'http://10.1.2.3:8080/']) {
      expect(outboundUrlProblem(url, guard), url).toBe('回调地址不能指向内网、本机或保留地址');
    }
    expect(outboundUrlProblem('http://127.0.0.1/', { ...guard, allowPrivateIp: true })).toBeNull();
    expect(outboundUrlProblem('http://127.0.0.1:22/', { ...guard, isEnabled: false })).toBeNull();
    expect(outboundUrlProblem('file:///etc/passwd', { ...guard, isEnabled: false })).toBe('回调地址必须是 http(s) 地址');
  });

  describe('at connection time', () => {
    let server: http.Server;
    let port = 0;
    beforeAll(async () => {
      server = http.createServer((_request, response) => response.end('reached'));
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      port = (server.address() as AddressInfo).port;
    });
    afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

    it('refuses a name that resolves only to private addresses, and reaches it once private addresses are allowed', async () => {
      const guarded = guardedAgent(guard);
      const refused = await request(`http://localhost:${port}/`, { dispatcher: guarded }).then(() => null, (error: unknown) => error);
      expect(blockedCause(refused)?.message).toBe('localhost 只解析到内网、本机或保留地址，已拒绝连接');
      await guarded.close();

      const open = guardedAgent({ ...guard, allowPrivateIp: true });
      const answer = await request(`http://localhost:${port}/`, { dispatcher: open });
      expect(await answer.body.text()).toBe('reached');
      await open.close();
    });
  });
});
