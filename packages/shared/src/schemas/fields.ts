import { z } from 'zod';

/**
 * Building blocks for every request schema: values from outside must fit the columns they end up
 * in on SQLite, PostgreSQL and MySQL alike, so a hostile value is a 400 with a message and never
 * a database error (PostgreSQL rejects NUL bytes in text and integers past 2^31 in `integer`).
 */
export const int32Max = 2_147_483_647;
/** 9999-12-31T23:59:59Z: the largest unix time (seconds) a request may carry. */
export const unixTimeMax = 253_402_300_799;

export const fieldMessages = {
  uncleanText: '不能包含空字符（\\u0000）或无效的 Unicode 字符',
  numberOutOfRange: '数值超出范围',
  timeOutOfRange: '时间超出范围',
} as const;

const loneSurrogate = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Text a database stores as given: no NUL byte and no lone UTF-16 surrogate. */
export const isCleanText = (text: string): boolean => !text.includes('\u0000') && !loneSurrogate.test(text);

/**
 * The path of the first string anywhere in a parsed JSON value (object keys included) that is
 * not clean text, or null; parseInput runs it on every body, query and params.
 */
export function findUncleanText(value: unknown, path: Array<string | number> = [], depth = 0): Array<string | number> | null {
  if (typeof value === 'string') return isCleanText(value) ? null : path;
  if (depth > 64 || typeof value !== 'object' || value === null) return null;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i += 1) {
      const found = findUncleanText(value[i], [...path, i], depth + 1);
      if (found) return found;
    }
    return null;
  }
  for (const [key, item] of Object.entries(value)) {
    if (!isCleanText(key)) return [...path, key];
    const found = findUncleanText(item, [...path, key], depth + 1);
    if (found) return found;
  }
  return null;
}

/** A string of at most `max` characters, clean text. */
export const cleanText = (max: number, params?: { error?: string }) =>
  z.string(params).max(max, params).refine(isCleanText, { error: fieldMessages.uncleanText });

/** A row id in a body: a positive integer within the `integer` column range. */
export const idField = (name = 'id') =>
  z
    .number({ error: `${name} 必须是数字` })
    .int({ error: `${name} 必须是整数` })
    .positive({ error: `${name} 必须是正整数` })
    .max(int32Max, { error: `${name} 超出范围` });

/** A row id in a path or query string ("12"); "abc", "1.5", "-1" and 2^31 are 400s. */
export const idParam = (name = 'id') =>
  z.coerce
    .number({ error: `${name} 必须是数字` })
    .int({ error: `${name} 必须是整数` })
    .positive({ error: `${name} 必须是正整数` })
    .max(int32Max, { error: `${name} 超出范围` });

/** An integer for an `integer` column (types, statuses, weights, counters set by hand). */
export const int32 = (error = '必须是整数') =>
  z
    .number({ error })
    .int({ error })
    .min(-int32Max - 1, { error: fieldMessages.numberOutOfRange })
    .max(int32Max, { error: fieldMessages.numberOutOfRange });

/** A unix time in seconds (0 … year 9999). */
export const unixTime = (error = '时间必须是整数秒') =>
  z.number({ error }).int({ error }).min(0, { error }).max(unixTimeMax, { error: fieldMessages.timeOutOfRange });

/** A query-string filter that is absent, '' or a non-negative integer up to `max`; '' reads as absent. */
export const optionalQueryInt = (name: string, max: number = int32Max) =>
  z
    .union([
      z.literal(''),
      z.coerce
        .number({ error: `${name} 必须是数字` })
        .int({ error: `${name} 必须是整数` })
        .min(0, { error: `${name} 不能为负数` })
        .max(max, { error: `${name} 超出范围` }),
    ])
    .optional()
    .transform((value) => (value === '' ? undefined : value));

/** A page number in a query string: an integer, at least 1 (0 and below read as 1), within int32. */
export const pageParam = () =>
  z.coerce
    .number({ error: 'p 必须是数字' })
    .int({ error: 'p 必须是整数' })
    .max(int32Max, { error: 'p 超出范围' })
    .optional()
    .transform((value) => Math.max(1, value ?? 1));
