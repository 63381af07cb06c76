import { channelTypeNames } from '@modelgate/shared';
import { invalidInput } from '../../lib/errors.js';
import { adapterForType } from '../../relay/providers/registry.js';

/** The channel type's own form check (adapter.validateChannel); a 400 with its message. */
export function checkChannelValues(type: number, key: string, other: string, baseURL: string): void {
  const message = adapterForType(type)?.validateChannel?.(key, other, baseURL);
  if (message) throw invalidInput(message);
}

/** Whether the relay can serve the type: only types with an adapter may be created or enabled. */
export const isChannelTypeSupported = (type: number): boolean => adapterForType(type) !== null;

const typeLabel = (type: number): string => {
  const name = channelTypeNames[type];
  return name ? `渠道类型 ${type}（${name}）` : `渠道类型 ${type}`;
};

export const unsupportedTypeMessage = (type: number): string => `${typeLabel(type)}暂不支持，无法创建或启用`;

/** A 400 naming the type when it has no adapter; every create and enable path calls it. */
export function checkChannelTypeSupported(type: number): void {
  if (!isChannelTypeSupported(type)) throw invalidInput(unsupportedTypeMessage(type));
}

/** A 400 naming the first unsupported type when channels of the given types would become enabled. */
export function checkTypesCanBeEnabled(types: Iterable<number>): void {
  for (const type of new Set(types)) checkChannelTypeSupported(type);
}
