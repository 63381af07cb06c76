import type { AppContext } from '../../context.js';
import type { UpstreamError } from '../errors.js';
import type { RelayState } from '../state.js';
import { disableChannelIfBanned } from './auto-disable.js';
import type { RelayChannel } from './channel-index.js';
import { disableKeyIfBanned } from './key-health.js';
import { retryPolicy } from './retry-policy.js';

/**
 * What a failed upstream call means, the same for chat, task submits and Realtime: the retry policy
 * (RetryStatusCodes, RetryOnConnectionError) says whether the call may go to another channel, the
 * cooldown counts it against the channel when it does, and a key error disables the key of a
 * multi-key channel, or a single-key channel as a whole. Answers whether to try another channel.
 */
export function onUpstreamFailure(ctx: AppContext, relay: RelayState, channel: RelayChannel, key: string, error: UpstreamError): boolean {
  const retries = retryPolicy(ctx.options).retries(error);
  relay.cooldown.onFailure(channel.id, error, retries);
  if (!disableKeyIfBanned(ctx, relay, channel, key, error)) disableChannelIfBanned(ctx, relay, channel, error);
  return retries;
}
