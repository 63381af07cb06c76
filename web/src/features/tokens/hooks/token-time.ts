import { formatDateTime } from '../../../lib/format';

/** Parses 'yyyy-MM-dd HH:mm:ss' (local time) to epoch seconds; '-1' is never; null when malformed. */
export function parseExpiry(text: string): number | null {
  const trimmed = text.trim();
  if (trimmed === '-1') return -1;
  const match = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})$/.exec(trimmed);
  if (!match) return null;
  const [year, month, day, hour, minute, second] = match.slice(1).map(Number) as [number, number, number, number, number, number];
  const date = new Date(year, month - 1, day, hour, minute, second);
  const isReal =
    date.getFullYear() === year &&
    date.getMonth() === month - 1 &&
    date.getDate() === day &&
    date.getHours() === hour &&
    date.getMinutes() === minute;
  return isReal ? Math.floor(date.getTime() / 1000) : null;
}

/** Expiry shortcuts: never, one hour, one day, one month (30 days). */
export const expiryShortcuts = [
  { key: 'never', seconds: 0 },
  { key: 'hour', seconds: 3600 },
  { key: 'day', seconds: 86400 },
  { key: 'month', seconds: 30 * 86400 },
] as const;

export const expiryText = (shortcut: (typeof expiryShortcuts)[number]): string =>
  shortcut.seconds === 0 ? '-1' : formatDateTime(Math.floor(Date.now() / 1000) + shortcut.seconds);
