import type { AppContext } from '../../context.js';
import { forbidden } from '../../lib/errors.js';
import { requireServerAddress } from '../../lib/server-address.js';
import { passkeysEnabled } from '../../lib/second-factors.js';

export const passkeysDisabledMessage = '管理员未启用 Passkey 登录';
export const noServerAddressMessage = '管理员未设置服务器地址，无法使用 Passkey';

export interface RelyingParty {
  /** The host name of ServerAddress: passkeys are bound to it (and work on its subdomains' pages only if it is theirs). */
  id: string;
  /** The one origin a ceremony may come from: ServerAddress's scheme, host and port. */
  origin: string;
  name: string;
}

/**
 * The WebAuthn relying party, from the `ServerAddress` option and never from the request's Host or
 * Origin (a caller writes those). Refused while passkeys are off or the address is unset. Changing
 * ServerAddress to another host name leaves existing passkeys unusable: they belong to the old one.
 */
export function relyingPartyOf(ctx: AppContext): RelyingParty {
  if (!passkeysEnabled(ctx)) throw forbidden(passkeysDisabledMessage);
  const url = new URL(requireServerAddress(ctx.options, noServerAddressMessage));
  return { id: url.hostname, origin: url.origin, name: ctx.options.get('SystemName').trim() || 'ModelGate' };
}
