/**
 * Lenient readers for values from the old database: every driver spells types differently
 * (PostgreSQL booleans, SQLite 0/1, MySQL tinyint; datetimes as Date or text; JSON as objects).
 */
export function int(value: unknown, fallback = 0): number {
  if (typeof value === 'number') return Number.isFinite(value) ? Math.trunc(value) : fallback;
  if (typeof value === 'bigint') return Number(value);
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (typeof value === 'string' && value.trim() !== '') {
    const parsed = Number(value);
    return Number.isFinite(parsed) ? Math.trunc(parsed) : fallback;
  }
  return fallback;
}

export function float(value: unknown, fallback = 0): number {
  const parsed = typeof value === 'string' ? Number(value) : typeof value === 'number' ? value : NaN;
  return Number.isFinite(parsed) ? parsed : fallback;
}

/** 0/1 from a boolean column of any dialect. */
export function flag(value: unknown): number {
  if (typeof value === 'string') return value === 't' || value === 'true' || value === '1' ? 1 : 0;
  return int(value) !== 0 ? 1 : 0;
}

/** Text; JSON columns that a driver decoded are encoded again. */
export function text(value: unknown, fallback = ''): string {
  if (value === null || value === undefined) return fallback;
  if (typeof value === 'string') return value;
  if (Buffer.isBuffer(value)) return value.toString('utf8');
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

/** Text that is NULL when empty (nullable unique columns: '' would collide). */
export function textOrNull(value: unknown): string | null {
  const out = text(value).trim();
  return out === '' ? null : out;
}

/**
 * A GORM DeletedAt / time.Time column (DATETIME, timestamptz, or SQLite text such as
 * `2024-05-01 10:00:00.123456+08:00`) as unix seconds; null when not set.
 */
export function unixSeconds(value: unknown): number | null {
  if (value === null || value === undefined || value === '') return null;
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : Math.floor(value.getTime() / 1000);
  if (typeof value === 'number') return value > 1e12 ? Math.floor(value / 1000) : Math.floor(value);
  const raw = text(value).trim();
  if (/^\d+$/.test(raw)) return unixSeconds(Number(raw));
  // Go writes up to nine fractional digits and a space before the time; Date.parse wants ISO.
  const iso = raw
    .replace(' ', 'T')
    .replace(/(\.\d{3})\d+/, '$1')
    .replace(/ ?([+-]\d\d:?\d\d|Z)$/, '$1');
  const hasZone = /([+-]\d\d:?\d\d|Z)$/.test(iso);
  const ms = Date.parse(hasZone ? iso : `${iso}Z`);
  return Number.isNaN(ms) ? null : Math.floor(ms / 1000);
}

/**
 * The first of `columns` holding an integer JavaScript cannot represent exactly (quotas beyond
 * 2^53), as a rejection reason; null when all are exact. Such a row is rejected, never rounded.
 */
export function inexactInteger(row: Record<string, unknown>, columns: string[]): string | null {
  for (const column of columns) {
    const value = row[column];
    if (value === null || value === undefined) continue;
    const number = typeof value === 'bigint' ? Number(value) : typeof value === 'string' ? Number(value) : value;
    const isExact =
      typeof value === 'bigint'
        ? value <= BigInt(Number.MAX_SAFE_INTEGER) && value >= BigInt(Number.MIN_SAFE_INTEGER)
        : typeof number !== 'number' || !Number.isFinite(number) || Number.isSafeInteger(Math.trunc(number));
    if (!isExact) return `its ${column} is beyond what ModelGate stores exactly (±2^53)`;
  }
  return null;
}

/** Whether a value carries anything (used to report columns that are not carried over). */
export function isSet(value: unknown): boolean {
  if (value === null || value === undefined) return false;
  if (typeof value === 'string') return value.trim() !== '' && value.trim() !== '{}' && value.trim() !== 'null' && value.trim() !== '[]';
  if (typeof value === 'number') return value !== 0;
  if (typeof value === 'boolean') return value;
  if (typeof value === 'object' && !(value instanceof Date)) return Object.keys(value).length > 0;
  return true;
}
