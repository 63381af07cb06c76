/** Query keys of the wallet feature (the balance is the shared self query, lib/api/self.ts). */
export const walletKeys = {
  /** The caller's top-up orders. */
  topUps: ['wallet', 'topups'] as const,
};
