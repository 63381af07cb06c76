/** Token counts as B, M or k above 1e9, 1e6 and 1e4; smaller counts as they are. */
export function formatTokenCount(count: number): string {
  const value = Number(count) || 0;
  const trim = (n: number) => String(Number(n.toFixed(2)));
  if (value >= 1e9) return `${trim(value / 1e9)}B`;
  if (value >= 1e6) return `${trim(value / 1e6)}M`;
  if (value >= 1e4) return `${trim(value / 1e3)}k`;
  return String(value);
}
