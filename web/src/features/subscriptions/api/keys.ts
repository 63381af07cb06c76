/** Query keys of the subscriptions feature. */
export const subscriptionKeys = {
  all: ['subscriptions'] as const,
  /** The caller's subscriptions and funding preference. */
  own: ['subscriptions', 'self'] as const,
  /** The plans on sale. */
  plans: ['subscriptions', 'plans'] as const,
  /** Every plan (admins). */
  adminPlans: ['subscriptions', 'admin-plans'] as const,
};
