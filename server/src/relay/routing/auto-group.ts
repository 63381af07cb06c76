import type { AppContext } from '../../context.js';
import { relayErrors } from '../errors.js';
import type { CachedUser } from '../pipeline/access-cache.js';
import type { RelayCaller } from '../pipeline/authenticate.js';
import type { RelayState } from '../state.js';

/** The token group that picks a real group per call (new-api's `auto`). */
export const autoGroupName = 'auto';

/**
 * The groups an `auto` token tries, in AutoGroups order: those the user may use (UserUsableGroups
 * plus their own group). `auto` itself is never one of them.
 */
export function userAutoGroups(ctx: AppContext, user: CachedUser, usable: ReadonlySet<string>): string[] {
  const order = ctx.options.json<unknown>('AutoGroups');
  if (!Array.isArray(order)) return [];
  const groups: string[] = [];
  for (const group of order) {
    if (typeof group === 'string' && group !== autoGroupName && usable.has(group) && !groups.includes(group)) groups.push(group);
  }
  return groups;
}

/**
 * The caller with its group for this model: for an `auto` token the first of its auto groups with a
 * channel for the model (404 model_not_found when none has one); any other caller as it is.
 */
export function resolveAutoGroup(relay: RelayState, caller: RelayCaller, model: string): RelayCaller {
  if (caller.autoGroups === null || caller.group !== autoGroupName) return caller;
  const group = caller.autoGroups.find((candidate) => relay.channels.hasModel(candidate, model));
  if (group === undefined) throw relayErrors.noChannel(autoGroupName, model);
  return { ...caller, group };
}

/**
 * The groups failover may continue into once every channel of the caller's group failed: the auto
 * groups after it that serve the model, when the token has cross-group retry; else none.
 */
export function crossRetryGroups(relay: RelayState, caller: RelayCaller, model: string): string[] {
  if (caller.autoGroups === null || !caller.token?.isCrossGroupRetry) return [];
  const at = caller.autoGroups.indexOf(caller.group);
  if (at < 0) return [];
  return caller.autoGroups.slice(at + 1).filter((group) => relay.channels.hasModel(group, model));
}

/** Models an `auto` caller can reach: the union over its auto groups (others: their group's). */
export function modelsOfCaller(relay: RelayState, caller: RelayCaller): string[] {
  if (caller.autoGroups === null || caller.group !== autoGroupName) return relay.channels.modelsOf(caller.group);
  return [...new Set(caller.autoGroups.flatMap((group) => relay.channels.modelsOf(group)))];
}
