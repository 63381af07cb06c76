import fs from 'node:fs';

let cached: { file: string; pem: string } | null = null;

/** The PEM of EXTRA_CA_FILE (read once per path), trusted besides the system's CAs; undefined when unset. */
export function extraCa(file: string): string | undefined {
  if (!file) return undefined;
  if (cached?.file !== file) cached = { file, pem: fs.readFileSync(file, 'utf8') };
  return cached.pem;
}
