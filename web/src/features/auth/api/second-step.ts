import type { SecondStepRequest } from '@modelgate/shared';

export type { SecondStepRequest };

/** Whether a first step's answer asks for the second step (no session yet). */
export const isSecondStepRequest = (data: unknown): data is SecondStepRequest =>
  typeof data === 'object' && data !== null && (data as { require_2fa?: unknown }).require_2fa === true;
