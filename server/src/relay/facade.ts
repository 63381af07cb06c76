import type { CachedUser } from './pipeline/access-cache.js';
import type { RelayChannel } from './routing/channel-index.js';
import { listUpstreamModels, probeChannel, readUpstreamBalance, type ModelListSource } from './probes.js';
import type { AdapterOptions } from './providers/types.js';
import type { UpstreamError } from './errors.js';
import type { RelayState } from './state.js';
import type { AppContext } from '../context.js';
import { videoContentFor, videoRangeOf, type VideoContent } from './tasks/video-content.js';
import { AppError } from '../lib/errors.js';
import { RelayError } from './errors.js';

export type { VideoContent };

/**
 * A relay refusal as the management API answers it: 404 for an unknown video, 400 for one not ready, 416
 * for a range past its end, 503 otherwise.
 */
function asAppError(error: unknown): unknown {
  if (!(error instanceof RelayError)) return error;
  const code =
    error.status === 404
      ? 'not_found'
      : error.status === 400
        ? 'invalid_input'
        : error.status === 416
          ? 'range_not_satisfiable'
          : 'unavailable';
  return new AppError(code, error.message);
}

/**
 * What the rest of the server may use of the relay (docs/architecture.md "Layers"): the admin probes,
 * the catalogue of served models the pricing page reads, and a listener for the users a ledger flush
 * wrote (server.ts wires the quota reminder to it). The relay's state itself stays inside relay/.
 */
export interface RelayFacade {
  /** Test one channel with one model: null when it answered, else the classified failure. */
  probeChannel(channel: RelayChannel, model: string, options: AdapterOptions): Promise<UpstreamError | null>;
  /** The models an upstream lists (the channel form's "fetch models"). */
  listUpstreamModels(source: ModelListSource): Promise<string[]>;
  /** The channel's upstream balance, null when its provider has none. */
  readUpstreamBalance(channel: RelayChannel): Promise<number | null>;
  catalogue: {
    /** Every model some enabled channel serves. */
    allModels(): string[];
    /** The groups whose enabled channels serve the model. */
    groupsOf(model: string): string[];
  };
  /** Told after each committed ledger flush which users' spending it wrote. */
  onUsersWritten(listener: (users: CachedUser[]) => void): void;
  /**
   * A finished video's bytes (the task log's preview): the viewer's own, or any for an admin (`userId`
   * null); the part a `Range` header asks for, so a player can seek. An AppError says why not.
   */
  videoContent(ctx: AppContext, taskId: string, userId: number | null, range: string | string[] | undefined): Promise<VideoContent>;
}

export function relayFacade(relay: RelayState): RelayFacade {
  return {
    probeChannel: (channel, model, options) => probeChannel(relay, channel, model, options),
    listUpstreamModels: (source) => listUpstreamModels(relay, source),
    readUpstreamBalance: (channel) => readUpstreamBalance(relay, channel),
    catalogue: {
      allModels: () => relay.channels.allModels(),
      groupsOf: (model) => relay.channels.groupsOf(model),
    },
    onUsersWritten: (listener) => {
      relay.usage.onUsersWritten = listener;
    },
    videoContent: (ctx, taskId, userId, range) =>
      videoContentFor(ctx, relay, taskId, userId, videoRangeOf(range)).catch((error: unknown) => {
        throw asAppError(error);
      }),
  };
}
