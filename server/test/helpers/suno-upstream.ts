import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A local Suno-API proxy: `POST /suno/submit/{MUSIC|LYRICS}` (Bearer key checked) answers
 * `{code:"success", data:"<upstream id>"}`; `POST /suno/fetch {ids}` answers each task's next state
 * from its script (the last state repeats), as Suno-API's fetch does.
 */
export interface SunoUpstream {
  url: string;
  /** Each submit as received (traceparent: the W3C trace context the gateway sent, when tracing is on). */
  submits: Array<{ path: string; authorization: string; body: any; traceparent?: string }>;
  /** How many times each upstream id was asked for. */
  fetched: Map<string, number>;
  /** The states the next submitted task goes through, one per fetch (`fields` replace the answer's own: a hostile upstream). */
  nextScript(states: SunoState[]): void;
  /** Makes the next submits fail with this HTTP status and body. */
  failSubmits(status: number, body: unknown, count?: number): void;
  close(): Promise<void>;
}

export interface SunoState {
  status: string;
  fail_reason?: string;
  fields?: Record<string, unknown>;
}

export async function startSunoUpstream(key: string): Promise<SunoUpstream> {
  const submits: SunoUpstream['submits'] = [];
  const fetched = new Map<string, number>();
  const scripts = new Map<string, SunoState[]>();
  let script: SunoState[] = [{ status: 'SUCCESS' }];
  let failures: Array<{ status: number; body: unknown }> = [];
  let next = 0;
  const server = http.createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (part: Buffer) => parts.push(part));
    req.on('end', () => {
      const body = parts.length > 0 ? JSON.parse(Buffer.concat(parts).toString('utf8')) : {};
      const send = (status: number, payload: unknown) =>
        res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(payload));
      if (req.headers.authorization !== `Bearer ${key}`)
        return send(401, { error: { message: 'invalid api key', type: 'authentication_error' } });
      if (req.url?.startsWith('/suno/submit/')) {
        submits.push({
          path: req.url,
          authorization: req.headers.authorization ?? '',
          body,
          traceparent: req.headers.traceparent as string | undefined,
        });
        const failure = failures.shift();
        if (failure) return send(failure.status, failure.body);
        next += 1;
        const id = `up-${next}-${Math.random().toString(36).slice(2, 8)}`;
        scripts.set(id, script);
        return send(200, { code: 'success', message: '', data: id });
      }
      if (req.url === '/suno/fetch') {
        const data = (body.ids as string[])
          .filter((id) => scripts.has(id))
          .map((id) => {
            const count = (fetched.get(id) ?? 0) + 1;
            fetched.set(id, count);
            const states = scripts.get(id)!;
            const state = states[Math.min(count, states.length) - 1]!;
            return {
              task_id: id,
              action: 'MUSIC',
              status: state.status,
              fail_reason: state.fail_reason ?? '',
              submit_time: 1_760_000_000,
              start_time: 1_760_000_005,
              finish_time: state.status === 'SUCCESS' ? 1_760_000_050 : 0,
              data:
                state.status === 'SUCCESS'
                  ? [{ id: `clip-${id}`, audio_url: `https://cdn.example/${id}.mp3`, title: 'Song', status: 'complete' }]
                  : [],
              ...state.fields,
            };
          });
        return send(200, { code: 'success', message: '', data });
      }
      send(404, { error: 'not found' });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    submits,
    fetched,
    nextScript: (states) => {
      script = states;
    },
    failSubmits: (status, body, count = 1) => {
      failures = Array.from({ length: count }, () => ({ status, body }));
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
