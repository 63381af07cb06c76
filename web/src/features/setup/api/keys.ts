/** Query keys of the setup feature. */
export const setupKeys = {
  state: ['setup'] as const,
};
