/** One model in the visual ratio editor; empty strings mean "not set". */
export interface RatioRow {
  name: string;
  price: string;
  ratio: string;
  completionRatio: string;
}

export type BatchMode = 'price' | 'ratio' | 'completionRatio' | 'bothRatio';

type NumberMap = Record<string, number>;

export function parseMap(text: string | undefined): NumberMap {
  if (!text) return {};
  try {
    const parsed: unknown = JSON.parse(text);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as NumberMap) : {};
  } catch {
    return {};
  }
}

const str = (value: number | undefined) => (value === undefined || value === null ? '' : String(value));

/** Rows for every model named in ModelPrice, ModelRatio or CompletionRatio, sorted by name. */
export function rowsFromOptions(options: Record<string, string>): RatioRow[] {
  const price = parseMap(options.ModelPrice);
  const ratio = parseMap(options.ModelRatio);
  const completion = parseMap(options.CompletionRatio);
  const names = [...new Set([...Object.keys(price), ...Object.keys(ratio), ...Object.keys(completion)])].sort();
  return names.map((name) => ({ name, price: str(price[name]), ratio: str(ratio[name]), completionRatio: str(completion[name]) }));
}

/** A value typed in a cell: empty, or a non-negative decimal (also while typing, e.g. "0."). */
export const isNumberText = (text: string): boolean => text === '' || /^\d*\.?\d*$/.test(text);

export const isValidNumber = (text: string): boolean => text.trim() !== '' && Number.isFinite(Number(text)) && Number(text) >= 0;

/** A row with a fixed price bills per call: its ratio fields are disabled. */
export const hasPrice = (row: RatioRow): boolean => row.price !== '';

export type BatchProblem = 'noSelection' | 'needBoth' | 'needValue' | 'invalidNumber';

/** Checks the batch-set inputs. */
export function checkBatch(selected: string[], mode: BatchMode, value: string, completionValue: string): BatchProblem | null {
  if (selected.length === 0) return 'noSelection';
  if (mode === 'bothRatio') {
    if (value.trim() === '' || completionValue.trim() === '') return 'needBoth';
    return isValidNumber(value) && isValidNumber(completionValue) ? null : 'invalidNumber';
  }
  if (value.trim() === '') return 'needValue';
  return isValidNumber(value) ? null : 'invalidNumber';
}

/** price clears both ratios; bothRatio clears the price; ratio and completionRatio set one field. */
export function applyBatch(rows: RatioRow[], selected: string[], mode: BatchMode, value: string, completionValue: string): RatioRow[] {
  const chosen = new Set(selected);
  const v = String(Number(value));
  return rows.map((row) => {
    if (!chosen.has(row.name)) return row;
    switch (mode) {
      case 'price':
        return { ...row, price: v, ratio: '', completionRatio: '' };
      case 'ratio':
        return { ...row, ratio: v };
      case 'completionRatio':
        return { ...row, completionRatio: v };
      case 'bothRatio':
        return { ...row, price: '', ratio: v, completionRatio: String(Number(completionValue)) };
    }
  });
}

/** From per-1M-token USD prices to ratios: ratio = input / 2, completion ratio = output / input. */
export function ratiosFromTokenPrices(input: number, output: number): { ratio: number; completionRatio: number } | 'zeroPrice' {
  if (input === 0) return 'zeroPrice';
  return { ratio: Number((input / 2).toFixed(6)), completionRatio: Number((output / input).toFixed(6)) };
}

function sameMap(a: NumberMap, b: NumberMap): boolean {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((key) => Object.hasOwn(b, key) && Number(b[key]) === Number(a[key]));
}

/**
 * The option changes implied by edited rows (and models removed from the editor), merged into the
 * stored maps; maps equal to the stored ones are left out.
 */
export function changesFromRows(rows: RatioRow[], options: Record<string, string>, removed: string[] = []): Record<string, string> {
  const stored = {
    ModelPrice: parseMap(options.ModelPrice),
    ModelRatio: parseMap(options.ModelRatio),
    CompletionRatio: parseMap(options.CompletionRatio),
  };
  const next = {
    ModelPrice: { ...stored.ModelPrice },
    ModelRatio: { ...stored.ModelRatio },
    CompletionRatio: { ...stored.CompletionRatio },
  };
  const set = (map: NumberMap, name: string, text: string) => {
    if (text === '') delete map[name];
    else map[name] = Number(text);
  };
  for (const name of removed) for (const map of Object.values(next)) delete map[name];
  for (const row of rows) {
    set(next.ModelPrice, row.name, row.price);
    set(next.ModelRatio, row.name, row.ratio);
    set(next.CompletionRatio, row.name, row.completionRatio);
  }
  const changes: Record<string, string> = {};
  for (const key of ['ModelPrice', 'ModelRatio', 'CompletionRatio'] as const) {
    if (!sameMap(next[key], stored[key])) changes[key] = JSON.stringify(next[key], null, 2);
  }
  return changes;
}

/** Rows whose non-empty cells are not valid numbers. */
export const invalidRows = (rows: RatioRow[]): RatioRow[] =>
  rows.filter((row) => [row.price, row.ratio, row.completionRatio].some((text) => text !== '' && !isValidNumber(text)));
