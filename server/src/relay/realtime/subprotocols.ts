/** Browser clients cannot set headers; they send the key as a subprotocol. */
export const keyProtocolPrefix = 'openai-insecure-api-key.';
export const betaProtocol = 'openai-beta.realtime-v1';

export function offeredSubprotocols(header: string | string[] | undefined): string[] {
  const text = Array.isArray(header) ? header.join(',') : (header ?? '');
  return text
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);
}

/** The `sk-…` key of an `openai-insecure-api-key.<key>` subprotocol, or null. */
export function keyFromSubprotocols(header: string | string[] | undefined): string | null {
  const entry = offeredSubprotocols(header).find((item) => item.startsWith(keyProtocolPrefix));
  const key = entry?.slice(keyProtocolPrefix.length);
  return key ? key : null;
}

/**
 * The subprotocol echoed back: `realtime` (what OpenAI answers), then the beta marker, then any other
 * offer; the key protocol only when it is the sole offer (a client that offers protocols must get one).
 */
export function pickSubprotocol(offered: ReadonlySet<string>): string | false {
  if (offered.has('realtime')) return 'realtime';
  if (offered.has(betaProtocol)) return betaProtocol;
  const list = [...offered];
  return list.find((item) => !item.startsWith(keyProtocolPrefix)) ?? list[0] ?? false;
}
