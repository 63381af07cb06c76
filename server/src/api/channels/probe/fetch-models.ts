import type { AppContext } from '../../../context.js';
import { invalidInput } from '../../../lib/errors.js';
import type { RelayFacade } from '../../../relay/facade.js';
import { loadRelayChannel } from './load-channel.js';

/**
 * The provider's model names (relay/probes.ts listUpstreamModels). `other` is the channel's
 * (region, account id): an unsaved channel's form passes its own.
 */
export async function fetchUpstreamModels(relay: RelayFacade, type: number, baseURL: string, key: string, other = ''): Promise<string[]> {
  try {
    return await relay.listUpstreamModels({ type, baseURL, key, other });
  } catch (error) {
    throw invalidInput(`获取模型列表失败：${(error as Error).message}`);
  }
}

export async function fetchChannelModels(ctx: AppContext, relay: RelayFacade, id: number): Promise<string[]> {
  const channel = await loadRelayChannel(ctx, id);
  return fetchUpstreamModels(relay, channel.type, channel.baseURL, channel.keys[0] ?? '', channel.other);
}
