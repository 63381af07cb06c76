import { http } from '../../../lib/http';

/** POST /api/user/stripe/amount: what `amount` costs by card, in the Stripe currency (asked as the user types). */
export const quoteCardAmount = (amount: number) => http.post<string>('/api/user/stripe/amount', { amount }, { silent: true });
