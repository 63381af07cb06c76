import dns, { type LookupAddress, type LookupOptions } from 'node:dns';
import { BlockList, isIP } from 'node:net';
import { Agent } from 'undici';
import { extraCa } from './extra-ca.js';

/**
 * SSRF protection for the URLs users, callers and upstreams hand the server to call (a quota webhook,
 * a Midjourney notifyHook, an image URL an upstream's task names), as new-api's fetch_setting does: with `fetch_setting.enable_ssrf_protection`
 * on (the default), such a URL must use http(s), a port of `fetch_setting.allowed_ports`, and reach
 * only public addresses unless `fetch_setting.allow_private_ip` is on. A host name is checked where
 * it is resolved, when the connection is made (guardedAgent), so a name that resolves to a public
 * address at one moment and to 127.0.0.1 at the next cannot slip through between a check and the call.
 * Channel base URLs, OAuth and payment endpoints are set by the root and are not subject to it.
 */

/** What the fetch_setting options say (options/registry.ts). */
export interface FetchGuard {
  isEnabled: boolean;
  allowPrivateIp: boolean;
  /** Inclusive port ranges. */
  allowedPorts: ReadonlyArray<readonly [number, number]>;
}

export const defaultAllowedPorts = ['80', '443', '8080', '8443'];

/** The guard as the options set it now (an unreadable port list reads as the default one). */
export function fetchGuardOf(options: { bool(key: 'fetch_setting.enable_ssrf_protection' | 'fetch_setting.allow_private_ip'): boolean; json<T>(key: 'fetch_setting.allowed_ports'): T }): FetchGuard {
  const entries = options.json<unknown[]>('fetch_setting.allowed_ports');
  return {
    isEnabled: options.bool('fetch_setting.enable_ssrf_protection'),
    allowPrivateIp: options.bool('fetch_setting.allow_private_ip'),
    allowedPorts: parsePortRanges(entries) ?? parsePortRanges(defaultAllowedPorts)!,
  };
}

/** Addresses that are not on the public internet: loopback, private, link-local (cloud metadata), CGNAT, documentation, multicast, reserved. */
const nonPublic = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.0.0.0', 24], ['192.0.2.0', 24], ['192.88.99.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['198.51.100.0', 24],
  ['203.0.113.0', 24], ['224.0.0.0', 4], ['240.0.0.0', 4],
] as const) nonPublic.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of [
  ['::', 128], ['::1', 128], ['100::', 64], ['2001:db8::', 32], ['2002::', 16], ['fc00::', 7], ['fe80::', 10], ['fec0::', 10], ['ff00::', 8],
] as const) nonPublic.addSubnet(net, prefix, 'ipv6');

/** The IPv4 address inside an IPv4-mapped (::ffff:a.b.c.d) or NAT64 (64:ff9b::a.b.c.d) IPv6 address, in its canonical form. */
const embeddedV4 = /^(?:::ffff|64:ff9b:):([0-9a-f]{1,4}):([0-9a-f]{1,4})$/;

/** Whether an IP address (v4 or v6, without brackets) is on the public internet. Anything unparseable is not. */
export function isPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return !nonPublic.check(address, 'ipv4');
  if (family !== 6) return false;
  // The URL parser writes an IPv6 address in its canonical form (lower case, `::`, hex groups).
  const canonical = new URL(`http://[${address}]`).hostname.slice(1, -1);
  const inner = embeddedV4.exec(canonical);
  if (inner) {
    const high = Number.parseInt(inner[1]!, 16);
    const low = Number.parseInt(inner[2]!, 16);
    return isPublicAddress(`${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`);
  }
  if (canonical.startsWith('::ffff:') || canonical.startsWith('64:ff9b::')) return false;
  return !nonPublic.check(canonical, 'ipv6');
}

/** `fetch_setting.allowed_ports` ("443", "8000-9000") as ranges; null when an entry is not a port or range. */
export function parsePortRanges(entries: readonly unknown[]): Array<[number, number]> | null {
  const ranges: Array<[number, number]> = [];
  for (const entry of entries) {
    const match = typeof entry === 'string' ? /^\s*(\d{1,5})\s*(?:-\s*(\d{1,5})\s*)?$/.exec(entry) : null;
    if (!match) return null;
    const low = Number(match[1]);
    const high = match[2] === undefined ? low : Number(match[2]);
    if (low < 1 || high > 65_535 || low > high) return null;
    ranges.push([low, high]);
  }
  return ranges;
}

/**
 * Why a URL may not be called back under the guard, or null when it may (its host name, if it has
 * one, is checked again when it is resolved). The reasons are messages for the user.
 */
export function outboundUrlProblem(raw: string, guard: FetchGuard): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return '回调地址不是有效的 URL';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return '回调地址必须是 http(s) 地址';
  if (!guard.isEnabled) return null;
  if (url.username !== '' || url.password !== '') return '回调地址不能包含用户名或密码';
  const port = url.port === '' ? (url.protocol === 'https:' ? 443 : 80) : Number(url.port);
  if (!guard.allowedPorts.some(([low, high]) => port >= low && port <= high)) return `回调地址的端口 ${port} 不在允许的端口列表中`;
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  if (!guard.allowPrivateIp && isIP(host) !== 0 && !isPublicAddress(host)) return '回调地址不能指向内网、本机或保留地址';
  return null;
}

/** The error a guarded lookup fails with: the name resolved only to addresses the guard refuses. */
export class BlockedAddressError extends Error {
  readonly code = 'ERR_SSRF_BLOCKED';
  constructor(hostname: string) {
    super(`${hostname} 只解析到内网、本机或保留地址，已拒绝连接`);
    this.name = 'BlockedAddressError';
  }
}

/** The BlockedAddressError behind a failed call (fetch wraps it as its cause), or null. */
export function blockedCause(error: unknown): BlockedAddressError | null {
  for (let at = error, depth = 0; at instanceof Error && depth < 4; at = at.cause, depth += 1) {
    if (at instanceof BlockedAddressError) return at;
  }
  return null;
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** A dns.lookup for net/tls.connect that drops the addresses the guard refuses. */
function guardedLookup(hostname: string, options: LookupOptions, callback: LookupCallback): void {
  dns.lookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) return callback(error, []);
    const allowed = addresses.filter((entry) => isPublicAddress(entry.address));
    if (allowed.length === 0) return callback(new BlockedAddressError(hostname), []);
    if (options.all === true) return callback(null, allowed);
    return callback(null, allowed[0]!.address, allowed[0]!.family);
  });
}

/**
 * An undici Agent for calls under the guard: names resolve only to public addresses unless private
 * ones are allowed. Literal addresses never reach a lookup: check them with outboundUrlProblem first.
 */
export function guardedAgent(guard: Pick<FetchGuard, 'isEnabled' | 'allowPrivateIp'>, connect: Record<string, unknown> = {}): Agent {
  const isGuarded = guard.isEnabled && !guard.allowPrivateIp;
  return new Agent({ connect: isGuarded ? { ...connect, lookup: guardedLookup } : connect });
}

/** The callback agent in use: one per CA file and guard mode (a change makes a new one; the old one's idle sockets close on their own). */
let callbackAgent: { key: string; dispatcher: Agent } | null = null;

/** The agent for calls to such URLs (webhooks, notify hooks, upstream image URLs): the guard, and EXTRA_CA_FILE's CA when set. */
export function callbackDispatcher(caFile: string, guard: FetchGuard): Agent {
  const key = `${caFile}\n${guard.isEnabled}\n${guard.allowPrivateIp}`;
  if (callbackAgent?.key !== key) {
    const ca = extraCa(caFile);
    callbackAgent = { key, dispatcher: guardedAgent(guard, ca ? { ca: [ca] } : {}) };
  }
  return callbackAgent.dispatcher;
}
