import { invalidInput } from '../../lib/errors.js';
import { adapterForType } from '../../relay/providers/registry.js';

/** The channel type's own form check (adapter.validateChannel); a 400 with its message. */
export function checkChannelValues(type: number, key: string, other: string, baseURL: string): void {
  const message = adapterForType(type)?.validateChannel?.(key, other, baseURL);
  if (message) throw invalidInput(message);
}
