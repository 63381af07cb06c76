/**
 * A database's refusal of a value's type or range: PostgreSQL's class 22 (data exception: integer
 * out of range, NUL byte in text, invalid text for a number) and MySQL's value errors. Request
 * schemas keep such values out; this is the net for one that slips through, so it answers 400.
 */
const mysqlValueErrors = new Set([
  'ER_DATA_TOO_LONG',
  'ER_WARN_DATA_OUT_OF_RANGE',
  'ER_TRUNCATED_WRONG_VALUE',
  'ER_TRUNCATED_WRONG_VALUE_FOR_FIELD',
  'ER_WRONG_VALUE_FOR_TYPE',
  'ER_INVALID_CHARACTER_STRING',
  'ER_WRONG_VALUE',
]);

export function isDataValueError(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code } = error as { code?: unknown };
  if (typeof code !== 'string') return false;
  if (/^22[0-9A-Z]{3}$/.test(code) && 'severity' in error) return true;
  return mysqlValueErrors.has(code) && 'sqlMessage' in error;
}
