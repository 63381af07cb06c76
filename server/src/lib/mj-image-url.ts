import type { OptionStore } from '../options/store.js';
import { serverAddressOf } from './server-address.js';

/**
 * A drawing's image URL as callers see it (the relay's task object and the drawing log): with
 * MjForwardUrlEnabled and a ServerAddress, the gateway's `/mj/image/{id}` proxy instead of the
 * upstream's URL, as new-api shows it.
 */
export function shownImageUrl(options: OptionStore, mjId: string, imageUrl: string): string {
  const serverAddress = serverAddressOf(options);
  if (!imageUrl || serverAddress === null || !options.bool('MjForwardUrlEnabled')) return imageUrl;
  return `${serverAddress}/mj/image/${encodeURIComponent(mjId)}`;
}
