import type { SubscriptionsOfUser } from '@modelgate/shared';
import { useQuery } from '@tanstack/react-query';
import { http } from '../../../lib/http';
import { subscriptionKeys } from './keys';

/** GET /api/subscription/self: the caller's subscriptions and funding preference. */
export const fetchOwnSubscriptions = () => http.get<SubscriptionsOfUser>('/api/subscription/self');

export const useOwnSubscriptions = () => useQuery({ queryKey: subscriptionKeys.own, queryFn: fetchOwnSubscriptions });
