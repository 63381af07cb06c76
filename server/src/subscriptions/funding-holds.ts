import type { Transaction } from 'kysely';
import type { Db, Storage } from '../db/index.js';
import type { Database } from '../db/schema.js';
import { returnFunding, type FundingPart } from './funding.js';

/**
 * Subscription shares held by calls in flight, written down (migration 0013; docs/billing.md,
 * "Funding by subscriptions"). A share is taken from the allowances when a call is held and billed
 * or given back when it ends; in between it lives in a `funding_holds` row of the instance serving
 * the call, changed in the same transaction as the allowances. A billed share's row goes in the
 * transaction that writes the call's log row (the usage flush, a task's charge). An instance killed
 * mid-call leaves its rows behind; `sweepFundingHolds` gives them back once the instance's heartbeat
 * (`relay_instances`) has stopped, so an allowance never stays short of a call that was not billed.
 */

/** The JSON of parts, as tasks' `subscription_parts`: `[{subscription_id, period_end, quota}]`. */
export function partsText(parts: readonly FundingPart[]): string {
  return JSON.stringify(parts.map((part) => ({ subscription_id: part.subscriptionId, period_end: part.periodEnd, quota: part.amount })));
}

/** The parts a `partsText` lists (anything else reads as none). */
export function partsOf(text: string): FundingPart[] {
  if (!text) return [];
  try {
    const parsed: unknown = JSON.parse(text);
    if (!Array.isArray(parsed)) return [];
    return parsed.flatMap((item: Record<string, unknown>) => {
      const part = { subscriptionId: Number(item?.subscription_id), periodEnd: Number(item?.period_end), amount: Number(item?.quota) };
      return Number.isSafeInteger(part.subscriptionId) &&
        Number.isSafeInteger(part.periodEnd) &&
        Number.isSafeInteger(part.amount) &&
        part.amount > 0
        ? [part]
        : [];
    });
  } catch {
    return [];
  }
}

const nowSeconds = () => Math.floor(Date.now() / 1000);

export interface HeldChange<T> {
  /** The row now held: null when no part is left. */
  nextId: number | null;
  /** The row was gone: a sweep gave its parts back (the instance was taken for dead). */
  wasSwept: boolean;
  result: T;
}

export interface SweepOptions {
  /** An instance unseen for this long is taken for dead. */
  deadAfterSeconds: number;
  /** Every other instance is taken for dead (one instance alone: no shared cache, so no other can run). */
  isAlone: boolean;
  now?: number;
}

/** The held shares of one instance (`instance`, a random id per process), and the sweep of dead instances' shares. */
export class FundingHoldStore {
  constructor(
    private readonly storage: Pick<Storage, 'db' | 'kind'>,
    readonly instance: string,
  ) {}

  private get db(): Db {
    return this.storage.db;
  }

  /**
   * Changes a call's held share in one transaction: the row it held (if any) is removed, `change`
   * takes or gives back allowance quota on the transaction (told whether the row was still there:
   * when a sweep had given its parts back, none of them is held any more), and the parts it answers
   * are written as the call's new row. Either all of it is written or none.
   */
  change<T>(
    userId: number,
    id: number | null,
    change: (trx: Transaction<Database>, wasSwept: boolean) => Promise<{ parts: readonly FundingPart[]; result: T }>,
    instance = this.instance,
  ): Promise<HeldChange<T>> {
    // Read committed (MySQL defaults to repeatable read): a take that lost a race re-reads the
    // allowance's latest value (funding.ts), never the transaction's first snapshot of it.
    return this.db
      .transaction()
      .setIsolationLevel('read committed')
      .execute(async (trx) => {
        let wasSwept = false;
        if (id !== null) {
          const removed = await trx.deleteFrom('funding_holds').where('id', '=', id).executeTakeFirst();
          wasSwept = Number(removed.numDeletedRows) === 0;
        }
        const { parts, result } = await change(trx, wasSwept);
        const nextId = parts.length > 0 ? await this.insert(trx, instance, userId, parts) : null;
        return { nextId, wasSwept, result };
      });
  }

  private async insert(trx: Transaction<Database>, instance: string, userId: number, parts: readonly FundingPart[]): Promise<number> {
    const query = trx.insertInto('funding_holds').values({ instance, user_id: userId, parts: partsText(parts), created_at: nowSeconds() });
    if (this.storage.kind === 'postgres') return Number((await query.returning('id').executeTakeFirstOrThrow()).id);
    return Number((await query.executeTakeFirstOrThrow()).insertId);
  }

  /** Gives a held share back and drops its row, in one transaction; nothing when a sweep already did. Answers the quota returned. */
  async giveBack(userId: number, id: number | null, parts: readonly FundingPart[], instance = this.instance): Promise<number> {
    if (id === null) return (await returnFunding(this.db, parts)).returned;
    const { result } = await this.change(
      userId,
      id,
      async (trx, wasSwept) => ({
        parts: [],
        result: wasSwept ? 0 : (await returnFunding(trx, parts)).returned,
      }),
      instance,
    );
    return result;
  }

  /** Marks this instance alive (its first beat inserts the row). */
  async beat(now = nowSeconds()): Promise<void> {
    const updated = await this.db.updateTable('relay_instances').set({ seen_at: now }).where('id', '=', this.instance).executeTakeFirst();
    if (Number(updated.numUpdatedRows) === 0)
      await this.db.insertInto('relay_instances').values({ id: this.instance, seen_at: now }).execute();
  }

  /** This instance stops: its heartbeat row goes (its holds were all billed or given back). */
  async leave(): Promise<void> {
    await this.db.deleteFrom('relay_instances').where('id', '=', this.instance).execute();
  }

  /**
   * Gives back the shares held by instances that stopped (killed mid-call), each row with its parts in
   * one transaction (a row another sweep took first is skipped), and drops the heartbeat rows of dead
   * instances that hold nothing. Answers how many rows and how much quota went back.
   */
  async sweep(options: SweepOptions): Promise<{ holds: number; quota: number }> {
    const now = options.now ?? nowSeconds();
    const live = options.isAlone
      ? [this.instance]
      : (
          await this.db
            .selectFrom('relay_instances')
            .select('id')
            .where('seen_at', '>=', now - options.deadAfterSeconds)
            .execute()
        )
          .map((row) => row.id)
          .concat(this.instance);
    const orphans = await this.db
      .selectFrom('funding_holds')
      .select(['id', 'user_id', 'instance', 'parts'])
      .where('instance', 'not in', live)
      .orderBy('id')
      .limit(1000)
      .execute();
    let quota = 0;
    for (const row of orphans) quota += await this.giveBack(row.user_id, row.id, partsOf(row.parts), row.instance);
    const holders = this.db.selectFrom('funding_holds').select('instance');
    await this.db.deleteFrom('relay_instances').where('id', 'not in', live).where('id', 'not in', holders).execute();
    return { holds: orphans.length, quota };
  }
}

/** Drops the rows of billed shares, in the transaction that writes their bills. */
export async function forgetHeldShares(trx: Transaction<Database>, ids: readonly number[]): Promise<void> {
  for (let i = 0; i < ids.length; i += 500) {
    await trx
      .deleteFrom('funding_holds')
      .where('id', 'in', ids.slice(i, i + 500))
      .execute();
  }
}

/** Gives back the parts of held rows and drops them, in the caller's transaction (a bill the database refused). */
export async function giveBackHeldShares(trx: Transaction<Database>, ids: readonly number[]): Promise<number> {
  let returned = 0;
  for (const id of ids) {
    const row = await trx.selectFrom('funding_holds').select('parts').where('id', '=', id).executeTakeFirst();
    if (!row) continue;
    const removed = await trx.deleteFrom('funding_holds').where('id', '=', id).executeTakeFirst();
    // A sweep that took the row first gave its parts back.
    if (Number(removed.numDeletedRows) === 0) continue;
    returned += (await returnFunding(trx, partsOf(row.parts))).returned;
  }
  return returned;
}
