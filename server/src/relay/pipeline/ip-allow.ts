import { BlockList, isIPv4, isIPv6 } from 'node:net';

/**
 * A token's allow_ips: one IP or CIDR per line, IPv4 and IPv6. Returns null for an empty list
 * (every address allowed). Unparseable lines are ignored.
 */
export function parseAllowIps(text: string): BlockList | null {
  const list = new BlockList();
  let count = 0;
  for (const raw of text.split(/[\n,]/)) {
    const line = raw.trim();
    if (!line) continue;
    const [address = '', prefixText] = line.split('/');
    const family = isIPv4(address) ? 'ipv4' : isIPv6(address) ? 'ipv6' : null;
    if (!family) continue;
    if (prefixText === undefined) list.addAddress(address, family);
    else {
      const prefix = Number(prefixText);
      if (!Number.isInteger(prefix) || prefix < 0 || prefix > (family === 'ipv4' ? 32 : 128)) continue;
      list.addSubnet(address, prefix, family);
    }
    count += 1;
  }
  return count > 0 ? list : null;
}

export function isIpAllowed(list: BlockList | null, ip: string): boolean {
  if (!list) return true;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  const address = mapped ? mapped[1]! : ip;
  if (isIPv4(address)) return list.check(address, 'ipv4');
  if (isIPv6(address)) return list.check(address, 'ipv6');
  return false;
}
