import type { UpstreamError } from '../errors.js';
import type { AdapterOptions } from '../providers/types.js';

/**
 * Which failed upstream calls are tried again on another channel: upstream statuses listed in
 * RetryStatusCodes (default: today's rule — 401, 403, 408, 429 and every 5xx but 504 and 524, which
 * already spent the whole wait), and with RetryOnConnectionError the failures without a status (the
 * upstream unreachable, reset, timed out, or its stream failing before the first byte).
 */
export interface RetryPolicy {
  retries(error: UpstreamError): boolean;
}

let parsed: { text: string; ranges: Array<[number, number]> } | null = null;

function rangesOf(text: string): Array<[number, number]> {
  if (parsed?.text === text) return parsed.ranges;
  const ranges: Array<[number, number]> = [];
  for (const item of text.split(',')) {
    const match = /^\s*(\d{3})(?:\s*-\s*(\d{3}))?\s*$/.exec(item);
    if (match) ranges.push([Number(match[1]), Number(match[2] ?? match[1])]);
  }
  parsed = { text, ranges };
  return ranges;
}

export function retryPolicy(options: AdapterOptions): RetryPolicy {
  const ranges = rangesOf(options.get('RetryStatusCodes'));
  const onConnection = options.bool('RetryOnConnectionError');
  return {
    retries(error) {
      const status = error.upstreamStatus;
      if (status === 0) return onConnection;
      return ranges.some(([low, high]) => status >= low && status <= high);
    },
  };
}
