export const stripTrailingSlashes = (value: string): string => value.trim().replace(/\/+$/, '');

export function isValidJson(text: string): boolean {
  if (text.trim() === '') return true;
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}
