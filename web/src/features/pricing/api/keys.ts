/** Query keys of the pricing page: the answer, and the table's client-side pages of it. */
export const pricingKeys = {
  all: ['pricing'] as const,
  table: (updatedAt: number, search: string) => [...pricingKeys.all, 'table', updatedAt, search] as const,
};
