import { http } from '../../../lib/http';

/** POST /api/user/amount: the money to pay for `amount` online, e.g. '7.30' (asked as the user types). */
export const quoteAmount = (amount: number) => http.post<string>('/api/user/amount', { amount, top_up_code: '' }, { silent: true });
