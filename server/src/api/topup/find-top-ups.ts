import { like } from '../../db/like.js';
import type { AppContext } from '../../context.js';

export interface TopUpPageQuery {
  page: number;
  pageSize: number;
  /** Admins: the start of a trade number, or a username. */
  keyword: string;
}

/** Which gateway took an order: card orders are Stripe's, every other method (zfb, wx, …) Epay's. */
export const gatewayOf = (paymentMethod: string): 'stripe' | 'epay' => (paymentMethod === 'stripe' ? 'stripe' : 'epay');

/**
 * GET /api/user/topup/self (the caller's orders) and GET /api/user/topup (admins: everyone's, with
 * the username), newest first. Each order shows its gateway and state (pending, success, expired).
 */
export async function findTopUps(ctx: AppContext, query: TopUpPageQuery, userId: number | null) {
  let base = ctx.storage.db.selectFrom('top_ups').leftJoin('users', 'users.id', 'top_ups.user_id');
  if (userId !== null) base = base.where('top_ups.user_id', '=', userId);
  if (query.keyword !== '') {
    const keyword = query.keyword;
    base = base.where((eb) => eb.or([like('top_ups.trade_no', keyword, 'starts'), eb('users.username', '=', keyword)]));
  }
  const [rows, count] = await Promise.all([
    base
      .select([
        'top_ups.id',
        'top_ups.user_id',
        'users.username',
        'top_ups.amount',
        'top_ups.money',
        'top_ups.trade_no',
        'top_ups.payment_method',
        'top_ups.status',
        'top_ups.create_time',
        'top_ups.complete_time',
      ])
      .orderBy('top_ups.id', 'desc')
      .limit(query.pageSize)
      .offset((query.page - 1) * query.pageSize)
      .execute(),
    base.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow(),
  ]);
  const items = rows.map((row) => ({
    id: row.id,
    user_id: row.user_id,
    ...(userId === null ? { username: row.username ?? '' } : {}),
    amount: Number(row.amount),
    money: Number(row.money),
    trade_no: row.trade_no,
    payment_method: row.payment_method,
    gateway: gatewayOf(row.payment_method),
    status: row.status,
    create_time: Number(row.create_time),
    complete_time: Number(row.complete_time),
  }));
  return { items, page: query.page, page_size: query.pageSize, total: Number(count.total) };
}
