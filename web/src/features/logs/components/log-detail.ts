import { logOtherSchema, parseStoredJson, type LogOther } from '@modelgate/shared';

export type { LogOther };

/** The details a log keeps in its `other` JSON (the shared logOtherSchema); {} when there are none. */
export const parseOther = (text: string): LogOther => parseStoredJson(logOtherSchema, text);

/** Duration colour: under 101 s green, under 300 s orange, else red. */
export const durationColor = (seconds: number): string => (seconds < 101 ? 'green' : seconds < 300 ? 'orange' : 'red');

/** First-token time colour: under 3 s green, under 10 s orange, else red. */
export const firstTokenColor = (seconds: number): string => (seconds < 3 ? 'green' : seconds < 10 ? 'orange' : 'red');

/** Tag colour of who paid a call. */
export const billingSourceColor: Record<string, string> = { subscription: 'purple', mixed: 'magenta', wallet: 'default' };

export const LogTypeColor: Record<number, string> = { 1: 'cyan', 2: 'green', 3: 'orange', 4: 'purple', 5: 'red', 6: 'blue' };
