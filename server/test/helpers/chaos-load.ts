/**
 * A load driver for the chaos suite: N chat requests at concurrency C against one or more gateway
 * URLs, each classified by what the client saw. Requests are plain fetch over real HTTP.
 */
export type Outcome =
  /** 200 with the whole answer (a JSON body with choices, or a stream ending in [DONE] without an error event). */
  | 'complete'
  /** An error status with an error body: nothing may be billed. */
  | 'refused'
  /** 200, then the stream ended in an error event or without [DONE] (an upstream drop after the first byte). */
  | 'cut'
  /** The client went away after the first streamed bytes. */
  | 'left'
  /** No HTTP answer at all (connection refused or reset by the gateway). */
  | 'failed';

export interface ChatCall {
  baseUrl: string;
  apiKey: string;
  body: Record<string, unknown>;
  /** Abort after the first chunk of the answer arrives (streams). */
  isLeaving?: boolean;
}

export interface CallResult {
  outcome: Outcome;
  status: number;
  /** performance.now() when the client had the whole answer (or gave up). */
  finishedAt: number;
  detail: string;
}

export async function callChat(call: ChatCall): Promise<CallResult> {
  const controller = new AbortController();
  let status = 0;
  try {
    const response = await fetch(`${call.baseUrl}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${call.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify(call.body),
      signal: controller.signal,
    });
    status = response.status;
    if (call.isLeaving && status === 200 && response.body) {
      const reader = response.body.getReader();
      await reader.read();
      controller.abort();
      await reader.cancel().catch(() => undefined);
      return { outcome: 'left', status, finishedAt: performance.now(), detail: '' };
    }
    let text = '';
    try {
      text = await response.text();
    } catch (error) {
      return { outcome: status === 200 ? 'cut' : 'failed', status, finishedAt: performance.now(), detail: String(error) };
    }
    const finishedAt = performance.now();
    if (status !== 200) return { outcome: 'refused', status, finishedAt, detail: text.slice(0, 300) };
    if (call.body.stream === true) {
      // An upstream cut after the first byte is passed on as an error event (then [DONE]).
      const isWhole = text.trimEnd().endsWith('data: [DONE]') && !text.includes('data: {"error"');
      return { outcome: isWhole ? 'complete' : 'cut', status, finishedAt, detail: text.slice(-200) };
    }
    const parsed = JSON.parse(text) as { choices?: unknown[] };
    return { outcome: Array.isArray(parsed.choices) ? 'complete' : 'cut', status, finishedAt, detail: text.slice(0, 300) };
  } catch (error) {
    return { outcome: status === 200 ? 'cut' : 'failed', status, finishedAt: performance.now(), detail: String(error) };
  }
}

/** Runs `total` tasks with at most `concurrency` at once; `onProgress` sees the count of finished ones. */
export async function runPool<T>(
  total: number,
  concurrency: number,
  task: (index: number) => Promise<T>,
  onProgress?: (done: number) => void,
): Promise<T[]> {
  const results = new Array<T>(total);
  let next = 0;
  let done = 0;
  const worker = async () => {
    while (next < total) {
      const index = next;
      next += 1;
      results[index] = await task(index);
      done += 1;
      onProgress?.(done);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, total) }, worker));
  return results;
}

/** Counts of outcomes per label, e.g. { 'plain:complete': 120, 'plain:refused-502': 3 }, for the test output. */
export function tally(results: Array<{ label: string; result: CallResult }>): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const { label, result } of results) {
    const key = `${label}:${result.outcome}${result.outcome === 'refused' ? `-${result.status}` : ''}`;
    counts[key] = (counts[key] ?? 0) + 1;
  }
  return counts;
}

/** Full-size runs set CHAOS_REQUESTS / CHAOS_CONCURRENCY (npm run test:chaos); CI uses the defaults. */
export function chaosSize(defaults: { requests: number; concurrency: number }): { requests: number; concurrency: number } {
  const requests = Number(process.env.CHAOS_REQUESTS ?? defaults.requests);
  const concurrency = Number(process.env.CHAOS_CONCURRENCY ?? defaults.concurrency);
  if (!Number.isInteger(requests) || requests < 1 || !Number.isInteger(concurrency) || concurrency < 1) {
    throw new Error('CHAOS_REQUESTS and CHAOS_CONCURRENCY must be positive integers');
  }
  return { requests, concurrency };
}
