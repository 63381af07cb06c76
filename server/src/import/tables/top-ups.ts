import type { TableMapper } from '../table-import.js';
import { float, int, text } from '../values.js';

/** top_ups (new-api only): payment orders, identified by their trade number. */
export const topUpsMapper: TableMapper<'top_ups'> = {
  source: 'top_ups',
  target: 'top_ups',
  noun: 'top-up',
  naturalKey: 'trade_no',
  uniqueColumns: ['trade_no'],
  references: { user_id: 'users' },
  map(row, ctx) {
    const id = int(row.id);
    const tradeNo = text(row.trade_no).trim();
    const userId = int(row.user_id);
    if (id <= 0) return 'it has no id';
    if (tradeNo === '') return 'it has no trade number';
    if (tradeNo.length > 191) return 'its trade number is longer than 191 characters';
    if (!ctx.ids.isImported('users', userId)) return `its user ${userId} is not imported`;
    return {
      id,
      user_id: userId,
      amount: int(row.amount),
      money: float(row.money),
      trade_no: tradeNo,
      payment_method: text(row.payment_method).slice(0, 32),
      create_time: int(row.create_time),
      complete_time: int(row.complete_time),
      status: text(row.status, 'pending').slice(0, 32) || 'pending',
    };
  },
};
