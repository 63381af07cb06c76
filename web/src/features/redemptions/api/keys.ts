/** Query keys of the redemptions feature; every redemption mutation invalidates `all`. */
export const redemptionKeys = {
  all: ['redemptions'] as const,
  list: (keyword: string) => [...redemptionKeys.all, 'list', keyword] as const,
  one: (id: number | null) => [...redemptionKeys.all, 'one', id] as const,
};
