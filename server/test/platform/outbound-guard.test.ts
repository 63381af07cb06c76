import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  addressEntry,
  blockedCause,
  domainPattern,
  fetchGuardOf,
  guardedAgent,
  isDomainListed,
  isPublicAddress,
  outboundUrlProblem,
  parsePortRanges,
  plainGuard,
  type FetchGuard,
} from '../../src/lib/outbound-guard.js';
import { optionRegistry } from '../../src/options/registry.js';

const guard: FetchGuard = plainGuard(true, false, parsePortRanges(['80', '443', '8080', '8443'])!);

/** The guard the options would give with these stored values over the defaults (the store's own reading: JSON parsed once per value). */
function guardWith(values: Record<string, string>): FetchGuard {
  const parsed = new Map<string, unknown>();
  const get = (key: string): string => values[key] ?? optionRegistry[key as keyof typeof optionRegistry].default;
  return fetchGuardOf({
    bool: (key) => get(key) === 'true',
    json: <T>(key: string): T => {
      if (!parsed.has(key)) parsed.set(key, JSON.parse(get(key)));
      return parsed.get(key) as T;
    },
  });
}

describe('the SSRF guard for callback URLs', () => {
  it.each([
    '127.0.0.1',
    '127.8.9.10',
    '10.0.0.1',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '224.0.0.1',
    '255.255.255.255',
    '198.18.0.1',
    '::1',
    '::',
    'fe80::1',
    'fd00::1',
    'fc00::7',
    'ff02::1',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '::FFFF:A00:7',
    '64:ff9b::10.0.0.1',
    '64:ff9b::1',
    '2001:db8::1',
    'not-an-ip',
    '',
  ])('%s is not public', (address) => {
    expect(isPublicAddress(address)).toBe(false);
  });

  it.each(['1.1.1.1', '8.8.8.8', '172.32.0.1', '100.128.0.1', '2606:4700:4700::1111', '::ffff:8.8.8.8', '64:ff9b::808:808'])(
    '%s is public',
    (address) => {
      expect(isPublicAddress(address)).toBe(true);
    },
  );

  it('reads allowed ports and ranges, and refuses anything else', () => {
    expect(parsePortRanges(['443', ' 8000 - 9000 '])).toEqual([
      [443, 443],
      [8000, 9000],
    ]);
    for (const bad of [[0], ['0'], ['65536'], ['9000-80'], ['443,80'], [null], ['abc'], ['-1']])
      expect(parsePortRanges(bad), JSON.stringify(bad)).toBeNull();
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
    for (const url of [
      'http://127.0.0.1/',
      'http://[::1]/',
      'http://0x7f.1/',
      'http://2130706433/',
      'http://[::ffff:169.254.169.254]/',
      'http://10.1.2.3:8080/',
    ]) {
      expect(outboundUrlProblem(url, guard), url).toBe('回调地址不能指向内网、本机或保留地址');
    }
    expect(outboundUrlProblem('http://127.0.0.1/', { ...guard, allowPrivateIp: true })).toBeNull();
    expect(outboundUrlProblem('http://127.0.0.1:22/', { ...guard, isEnabled: false })).toBeNull();
    expect(outboundUrlProblem('file:///etc/passwd', { ...guard, isEnabled: false })).toBe('回调地址必须是 http(s) 地址');
  });

  it('reads domain list entries as new-api does: exact names and *.domain for it and every name below it', () => {
    expect(domainPattern(' Hooks.Example.COM ')).toBe('hooks.example.com');
    expect(domainPattern('*.example.com')).toBe('.example.com');
    expect(domainPattern('bücher.de')).toBe('xn--bcher-kva.de');
    for (const bad of [
      '',
      '*.',
      '*',
      'a b.com',
      'http://example.com',
      'example.com/x',
      'example.com:443',
      '.example.com',
      'example..com',
      '10.0.0.1',
      '1.2',
      '[::1]',
      'a.*.com',
      42,
      null,
    ]) {
      expect(domainPattern(bad), JSON.stringify(bad)).toBeNull();
    }
    const patterns = ['hooks.example.com', '.corp.example'];
    expect(isDomainListed('hooks.example.com', patterns)).toBe(true);
    expect(isDomainListed('corp.example', patterns)).toBe(true);
    expect(isDomainListed('a.b.corp.example', patterns)).toBe(true);
    expect(isDomainListed('evilcorp.example', patterns)).toBe(false);
    expect(isDomainListed('x.hooks.example.com', patterns)).toBe(false);
  });

  it('reads address list entries: single addresses and CIDR ranges, v4 and v6', () => {
    expect(addressEntry('203.0.113.7')).toEqual(['203.0.113.7', 32, 'ipv4']);
    expect(addressEntry(' 10.0.0.0/8 ')).toEqual(['10.0.0.0', 8, 'ipv4']);
    expect(addressEntry('2001:db8::/32')).toEqual(['2001:db8::', 32, 'ipv6']);
    for (const bad of ['10.0.0.0/33', '2001:db8::/129', '10.0.0', 'example.com', '10.0.0.0/', '/8', '10.0.0.0/8/8', '', 7, null]) {
      expect(addressEntry(bad), JSON.stringify(bad)).toBeNull();
    }
  });

  it('a domain allow list lets only its names through, a block list refuses its names', () => {
    const allow = guardWith({
      'fetch_setting.domain_filter_mode': 'true',
      'fetch_setting.domain_list': '["hooks.example.com", "*.corp.example"]',
    });
    expect(outboundUrlProblem('https://hooks.example.com/x', allow)).toBeNull();
    expect(outboundUrlProblem('https://api.corp.example/x', allow)).toBeNull();
    expect(outboundUrlProblem('https://HOOKS.Example.com/x', allow)).toBeNull();
    expect(outboundUrlProblem('https://other.example.com/x', allow)).toBe('回调地址的域名不在允许列表中');
    // An allow list of domains says nothing about literal addresses: the address rules decide those.
    expect(outboundUrlProblem('https://8.8.8.8/x', allow)).toBeNull();
    const emptyAllow = guardWith({ 'fetch_setting.domain_filter_mode': 'true' });
    expect(outboundUrlProblem('https://hooks.example.com/x', emptyAllow)).toBe('回调地址的域名不在允许列表中');

    const block = guardWith({ 'fetch_setting.domain_list': '["*.internal.example"]' });
    expect(outboundUrlProblem('https://db.internal.example/x', block)).toBe('回调地址的域名在禁止列表中');
    expect(outboundUrlProblem('https://internal.example/x', block)).toBe('回调地址的域名在禁止列表中');
    expect(outboundUrlProblem('https://hooks.example.com/x', block)).toBeNull();
    // With the protection off, no list applies.
    expect(outboundUrlProblem('https://db.internal.example/x', { ...block, isEnabled: false })).toBeNull();
  });

  it('an address allow list lets only its addresses through, a block list refuses its addresses (IPv4 inside IPv6 too)', () => {
    const allow = guardWith({ 'fetch_setting.ip_filter_mode': 'true', 'fetch_setting.ip_list': '["8.8.8.0/24", "2606:4700::/32"]' });
    expect(outboundUrlProblem('https://8.8.8.8/x', allow)).toBeNull();
    expect(outboundUrlProblem('https://[::ffff:8.8.8.8]/x', allow)).toBeNull();
    expect(outboundUrlProblem('https://[2606:4700:4700::1111]/x', allow)).toBeNull();
    expect(outboundUrlProblem('https://1.1.1.1/x', allow)).toBe('回调地址的 IP 不在允许列表中');
    // The private-address rule comes first: an allow list does not open loopback while private addresses are refused.
    expect(
      outboundUrlProblem(
        'http://127.0.0.1/',
        guardWith({ 'fetch_setting.ip_filter_mode': 'true', 'fetch_setting.ip_list': '["127.0.0.0/8"]' }),
      ),
    ).toBe('回调地址不能指向内网、本机或保留地址');

    const block = guardWith({ 'fetch_setting.allow_private_ip': 'true', 'fetch_setting.ip_list': '["169.254.0.0/16", "1.1.1.1"]' });
    expect(outboundUrlProblem('http://169.254.169.254/', block)).toBe('回调地址的 IP 在禁止列表中');
    expect(outboundUrlProblem('http://[::ffff:a9fe:a9fe]/', block)).toBe('回调地址的 IP 在禁止列表中');
    expect(outboundUrlProblem('https://1.1.1.1/', block)).toBe('回调地址的 IP 在禁止列表中');
    expect(outboundUrlProblem('http://10.0.0.5/', block)).toBeNull();
  });

  it('the option checks refuse lists that are not lists of domains or addresses', () => {
    const domainCheck = optionRegistry['fetch_setting.domain_list'].check!;
    const addressCheck = optionRegistry['fetch_setting.ip_list'].check!;
    expect(domainCheck('["example.com", "*.example.org"]')).toBeNull();
    expect(domainCheck('[]')).toBeNull();
    for (const bad of ['{}', '"example.com"', '["example.com", 1]', '["10.0.0.1"]', '["https://example.com"]'])
      expect(domainCheck(bad), bad).toMatch(/^必须是域名字符串的 JSON 数组/);
    expect(addressCheck('["203.0.113.7", "10.0.0.0/8", "fd00::/8"]')).toBeNull();
    for (const bad of ['{}', '["example.com"]', '["10.0.0.0/40"]', '[null]'])
      expect(addressCheck(bad), bad).toMatch(/^必须是 IP 地址或 CIDR 网段字符串的 JSON 数组/);
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
      const refused = await request(`http://localhost:${port}/`, { dispatcher: guarded }).then(
        () => null,
        (error: unknown) => error,
      );
      expect(blockedCause(refused)?.message).toBe('localhost 只解析到内网、本机或保留地址，已拒绝连接');
      await guarded.close();

      const open = guardedAgent({ ...guard, allowPrivateIp: true });
      const answer = await request(`http://localhost:${port}/`, { dispatcher: open });
      expect(await answer.body.text()).toBe('reached');
      await open.close();
    });

    it('checks the addresses a name resolves to against the address list, unless that is turned off for names', async () => {
      const blocking = { 'fetch_setting.allow_private_ip': 'true', 'fetch_setting.ip_list': '["127.0.0.0/8", "::1"]' };
      const blocked = guardedAgent(guardWith(blocking));
      const refused = await request(`http://localhost:${port}/`, { dispatcher: blocked }).then(
        () => null,
        (error: unknown) => error,
      );
      expect(blockedCause(refused)?.message).toBe('localhost 解析到的地址都不被 IP 列表允许，已拒绝连接');
      await blocked.close();

      const namesUnchecked = guardedAgent(guardWith({ ...blocking, 'fetch_setting.apply_ip_filter_for_domain': 'false' }));
      expect(await (await request(`http://localhost:${port}/`, { dispatcher: namesUnchecked })).body.text()).toBe('reached');
      await namesUnchecked.close();

      const allowed = guardedAgent(
        guardWith({
          'fetch_setting.allow_private_ip': 'true',
          'fetch_setting.ip_filter_mode': 'true',
          'fetch_setting.ip_list': '["127.0.0.1", "::1"]',
        }),
      );
      expect(await (await request(`http://localhost:${port}/`, { dispatcher: allowed })).body.text()).toBe('reached');
      await allowed.close();
    });
  });
});
