import dns, { type LookupAddress, type LookupOptions } from 'node:dns';
import { BlockList, isIP } from 'node:net';
import { Agent } from 'undici';
import { extraCa } from './extra-ca.js';

/**
 * SSRF protection for the URLs users, callers and upstreams hand the server to call (a quota webhook,
 * a Midjourney notifyHook, an image URL an upstream's task names), as new-api's fetch_setting does: with `fetch_setting.enable_ssrf_protection`
 * on (the default), such a URL must use http(s), a port of `fetch_setting.allowed_ports`, and reach
 * only public addresses unless `fetch_setting.allow_private_ip` is on. The root may also keep a list
 * of domains (`fetch_setting.domain_list`, `example.com` or `*.example.com`) and one of addresses
 * (`fetch_setting.ip_list`, single addresses or CIDR ranges), each an allow list or a block list
 * (`fetch_setting.domain_filter_mode`, `fetch_setting.ip_filter_mode`: true = allow list, where an
 * empty list allows nothing). The address list applies to literal addresses, and to the addresses a
 * name resolves to unless `fetch_setting.apply_ip_filter_for_domain` is off.
 * A host name is checked where it is resolved, when the connection is made (guardedAgent), so a name
 * that resolves to a public address at one moment and to 127.0.0.1 at the next cannot slip through
 * between a check and the call.
 * Channel base URLs (admins and the root), OAuth and payment endpoints (the root) are not subject to it:
 * a channel may point at a model server on the local network.
 */

/** What the fetch_setting options say (options/registry.ts). */
export interface FetchGuard {
  isEnabled: boolean;
  allowPrivateIp: boolean;
  /** Inclusive port ranges. */
  allowedPorts: ReadonlyArray<readonly [number, number]>;
  /** Host names: exact (`example.com`) or a domain with its subdomains (`*.example.com` as `.example.com`). */
  domains: AddressFilter<readonly string[]>;
  /** Addresses and ranges. */
  addresses: AddressFilter<BlockList>;
  /** Whether `addresses` also applies to what a host name resolves to. */
  isAddressFilterForNames: boolean;
}

/** A list and how it is read: an allow list (nothing else passes; empty, nothing passes) or a block list. */
export interface AddressFilter<List> {
  isAllowList: boolean;
  list: List;
}

/** No list, as a block list: nothing is refused by it. */
const noDomains: AddressFilter<readonly string[]> = { isAllowList: false, list: [] };
const noAddresses: AddressFilter<BlockList> = { isAllowList: false, list: new BlockList() };

/** The guard with no domain or address list (the defaults). */
export function plainGuard(
  isEnabled: boolean,
  allowPrivateIp: boolean,
  allowedPorts: ReadonlyArray<readonly [number, number]>,
): FetchGuard {
  return { isEnabled, allowPrivateIp, allowedPorts, domains: noDomains, addresses: noAddresses, isAddressFilterForNames: true };
}

export const defaultAllowedPorts = ['80', '443', '8080', '8443'];

type BoolKey =
  | 'fetch_setting.enable_ssrf_protection'
  | 'fetch_setting.allow_private_ip'
  | 'fetch_setting.domain_filter_mode'
  | 'fetch_setting.ip_filter_mode'
  | 'fetch_setting.apply_ip_filter_for_domain';
type ListKey = 'fetch_setting.allowed_ports' | 'fetch_setting.domain_list' | 'fetch_setting.ip_list';

/** The lists last compiled, by the parsed arrays the option store hands out (it parses each stored value once). */
let compiled: { domains: unknown[]; addresses: unknown[]; value: { domains: readonly string[]; addresses: BlockList } } | null = null;

/**
 * The guard as the options set it now. An unreadable port list reads as the default one; an entry of
 * the domain or address list that is not one (only a hand-edited database holds such: saving and
 * importing refuse them) is left out.
 */
export function fetchGuardOf(options: { bool(key: BoolKey): boolean; json<T>(key: ListKey): T }): FetchGuard {
  const domainEntries = options.json<unknown[]>('fetch_setting.domain_list');
  const addressEntries = options.json<unknown[]>('fetch_setting.ip_list');
  if (compiled?.domains !== domainEntries || compiled.addresses !== addressEntries) {
    compiled = {
      domains: domainEntries,
      addresses: addressEntries,
      value: { domains: domainPatterns(domainEntries), addresses: addressList(addressEntries) },
    };
  }
  return {
    isEnabled: options.bool('fetch_setting.enable_ssrf_protection'),
    allowPrivateIp: options.bool('fetch_setting.allow_private_ip'),
    allowedPorts: parsePortRanges(options.json<unknown[]>('fetch_setting.allowed_ports')) ?? parsePortRanges(defaultAllowedPorts)!,
    domains: { isAllowList: options.bool('fetch_setting.domain_filter_mode'), list: compiled.value.domains },
    addresses: { isAllowList: options.bool('fetch_setting.ip_filter_mode'), list: compiled.value.addresses },
    isAddressFilterForNames: options.bool('fetch_setting.apply_ip_filter_for_domain'),
  };
}

/** A domain list entry as the pattern it is matched by (`example.com`, or `.example.com` for `*.example.com`), or null when it is not one. */
export function domainPattern(entry: unknown): string | null {
  if (typeof entry !== 'string') return null;
  const trimmed = entry.trim().toLowerCase();
  const isWildcard = trimmed.startsWith('*.');
  const name = isWildcard ? trimmed.slice(2) : trimmed;
  if (
    name === '' ||
    name.length > 253 ||
    !/^[\p{L}\p{N}._-]+$/u.test(name) ||
    name.startsWith('.') ||
    name.endsWith('.') ||
    name.includes('..')
  )
    return null;
  let ascii: string;
  try {
    ascii = new URL(`http://${name}/`).hostname;
  } catch {
    return null;
  }
  // A host name, not an address (the URL parser reads `1.2` as 1.0.0.2): addresses go in the address list.
  if (isIP(ascii) !== 0 || /^[\d.]+$/.test(name)) return null;
  return isWildcard ? `.${ascii}` : ascii;
}

function domainPatterns(entries: readonly unknown[]): string[] {
  return entries.map(domainPattern).filter((pattern): pattern is string => pattern !== null);
}

/** Whether a host name is on the list: equal to an entry, or `*.example.com` and it is example.com or below it. */
export function isDomainListed(hostname: string, patterns: readonly string[]): boolean {
  const name = hostname.toLowerCase();
  return patterns.some((pattern) => (pattern.startsWith('.') ? name === pattern.slice(1) || name.endsWith(pattern) : name === pattern));
}

/** An address list entry (`203.0.113.7`, `203.0.113.0/24`, `2001:db8::/32`) as [address, prefix, family], or null when it is not one. */
export function addressEntry(entry: unknown): [string, number, 'ipv4' | 'ipv6'] | null {
  if (typeof entry !== 'string') return null;
  const match = /^\s*([0-9a-fA-F.:]+)(?:\/(\d{1,3}))?\s*$/.exec(entry);
  const family = match ? isIP(match[1]!) : 0;
  if (!match || family === 0) return null;
  const prefix = match[2] === undefined ? (family === 4 ? 32 : 128) : Number(match[2]);
  if (prefix > (family === 4 ? 32 : 128)) return null;
  return [match[1]!, prefix, family === 4 ? 'ipv4' : 'ipv6'];
}

function addressList(entries: readonly unknown[]): BlockList {
  const list = new BlockList();
  for (const entry of entries) {
    const parsed = addressEntry(entry);
    if (parsed) list.addSubnet(parsed[0], parsed[1], parsed[2]);
  }
  return list;
}

/** Whether an address list can refuse anything: an allow list, or a block list with entries. */
const isFilterActive = (filter: AddressFilter<BlockList>): boolean => filter.isAllowList || filter.list.rules.length > 0;

/** Whether the address list lets an address through (an IPv4 address inside an IPv6 one is checked as IPv4 too). */
function isAddressAllowed(address: string, filter: AddressFilter<BlockList>): boolean {
  if (!isFilterActive(filter)) return true;
  const family = isIP(address);
  let isListed = family === 4 ? filter.list.check(address, 'ipv4') : family === 6 && filter.list.check(address, 'ipv6');
  const inner = family === 6 ? embeddedV4Of(address) : null;
  if (inner !== null) isListed ||= filter.list.check(inner, 'ipv4');
  return filter.isAllowList ? isListed : !isListed;
}

/** Addresses that are not on the public internet: loopback, private, link-local (cloud metadata), CGNAT, documentation, multicast, reserved. */
const nonPublic = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  nonPublic.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['100::', 64],
  ['2001:db8::', 32],
  ['2002::', 16],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
] as const)
  nonPublic.addSubnet(net, prefix, 'ipv6');

/** The IPv4 address inside an IPv4-mapped (::ffff:a.b.c.d) or NAT64 (64:ff9b::a.b.c.d) IPv6 address, in its canonical form. */
const embeddedV4 = /^(?:::ffff|64:ff9b:):([0-9a-f]{1,4}):([0-9a-f]{1,4})$/;

/** The IPv4 address inside an IPv4-mapped or NAT64 IPv6 address, or null. */
function embeddedV4Of(address: string): string | null {
  // The URL parser writes an IPv6 address in its canonical form (lower case, `::`, hex groups).
  const inner = embeddedV4.exec(new URL(`http://[${address}]`).hostname.slice(1, -1));
  if (!inner) return null;
  const high = Number.parseInt(inner[1]!, 16);
  const low = Number.parseInt(inner[2]!, 16);
  return `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`;
}

/** Whether an IP address (v4 or v6, without brackets) is on the public internet. Anything unparseable is not. */
export function isPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return !nonPublic.check(address, 'ipv4');
  if (family !== 6) return false;
  const inner = embeddedV4Of(address);
  if (inner !== null) return isPublicAddress(inner);
  const canonical = new URL(`http://[${address}]`).hostname.slice(1, -1);
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
  if (isIP(host) !== 0) {
    if (!guard.allowPrivateIp && !isPublicAddress(host)) return '回调地址不能指向内网、本机或保留地址';
    if (!isAddressAllowed(host, guard.addresses))
      return guard.addresses.isAllowList ? '回调地址的 IP 不在允许列表中' : '回调地址的 IP 在禁止列表中';
    return null;
  }
  const isListed = isDomainListed(host, guard.domains.list);
  if (guard.domains.isAllowList && !isListed) return '回调地址的域名不在允许列表中';
  if (!guard.domains.isAllowList && isListed) return '回调地址的域名在禁止列表中';
  return null;
}

/** The error a guarded lookup fails with: the name resolved only to addresses the guard refuses. */
export class BlockedAddressError extends Error {
  readonly code = 'ERR_SSRF_BLOCKED';
  constructor(hostname: string, isByList = false) {
    super(isByList ? `${hostname} 解析到的地址都不被 IP 列表允许，已拒绝连接` : `${hostname} 只解析到内网、本机或保留地址，已拒绝连接`);
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
function guardedLookup(guard: FetchGuard): (hostname: string, options: LookupOptions, callback: LookupCallback) => void {
  const isListChecked = guard.isAddressFilterForNames;
  return (hostname, options, callback) => {
    dns.lookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, []);
      const reachable = guard.allowPrivateIp ? addresses : addresses.filter((entry) => isPublicAddress(entry.address));
      if (reachable.length === 0) return callback(new BlockedAddressError(hostname), []);
      const allowed = isListChecked ? reachable.filter((entry) => isAddressAllowed(entry.address, guard.addresses)) : reachable;
      if (allowed.length === 0) return callback(new BlockedAddressError(hostname, true), []);
      if (options.all === true) return callback(null, allowed);
      return callback(null, allowed[0]!.address, allowed[0]!.family);
    });
  };
}

/** Whether a name's resolved addresses must be checked when connecting. */
const isLookupGuarded = (guard: FetchGuard): boolean =>
  guard.isEnabled && (!guard.allowPrivateIp || (guard.isAddressFilterForNames && isFilterActive(guard.addresses)));

/**
 * An undici Agent for calls under the guard: names resolve only to public addresses unless private
 * ones are allowed, and only to addresses the address list lets through. Literal addresses never
 * reach a lookup: check them with outboundUrlProblem first.
 */
export function guardedAgent(guard: FetchGuard, connect: Record<string, unknown> = {}): Agent {
  return new Agent({ connect: isLookupGuarded(guard) ? { ...connect, lookup: guardedLookup(guard) } : connect });
}

/** The callback agent in use: one per CA file and guard mode (a change makes a new one; the old one's idle sockets close on their own). */
let callbackAgent: { key: string; dispatcher: Agent } | null = null;

/** The agent for calls to such URLs (webhooks, notify hooks, upstream image URLs): the guard, and EXTRA_CA_FILE's CA when set. */
export function callbackDispatcher(caFile: string, guard: FetchGuard): Agent {
  const key = `${caFile}\n${guard.isEnabled}\n${guard.allowPrivateIp}\n${guard.isAddressFilterForNames}\n${guard.addresses.isAllowList}\n${guard.addresses.list.rules.join(',')}`;
  if (callbackAgent?.key !== key) {
    const ca = extraCa(caFile);
    callbackAgent = { key, dispatcher: guardedAgent(guard, ca ? { ca: [ca] } : {}) };
  }
  return callbackAgent.dispatcher;
}
