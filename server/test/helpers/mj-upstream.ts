import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** One state of a scripted upstream task, as list-by-condition reports it. */
export interface MjScriptStep {
  status: string;
  progress?: string;
  failReason?: string;
  /** The image URL a finished step reports instead of the upstream's own (a hostile upstream's). */
  imageUrl?: string;
}

/**
 * A local Midjourney-Proxy (Plus) speaking its wire: `POST /mj/submit/*` and `/mj/insight-face/swap`
 * (key in `mj-api-secret`) answer `{code:1, description, result:"<upstream id>", properties}`;
 * `POST /mj/task/list-by-condition {ids}` answers the task objects, each moving one step of its
 * script per poll (the last repeats); `GET /mj/task/{id}/image-seed` answers a seed;
 * `GET /images/{id}.png` serves the finished image. Every request is recorded.
 */
export interface MjUpstream {
  url: string;
  submits: Array<{ path: string; secret: string; body: any }>;
  /** How many times each upstream id was listed. */
  listed: Map<string, number>;
  seeds: string[];
  /** The states the next submitted task goes through, one per list. */
  nextScript(steps: MjScriptStep[]): void;
  /** The next submits answer this (HTTP status and body) instead. */
  answerSubmits(status: number, body: unknown, count?: number): void;
  close(): Promise<void>;
}

/** A real 1×1 PNG (browsers decode it). */
export const pngBytes = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  'base64',
);

export async function startMjUpstream(secret: string): Promise<MjUpstream> {
  const submits: MjUpstream['submits'] = [];
  const listed = new Map<string, number>();
  const seeds: string[] = [];
  const tasks = new Map<string, { action: string; prompt: string; steps: MjScriptStep[]; submittedAt: number; finishedAt?: number }>();
  let script: MjScriptStep[] = [{ status: 'SUCCESS' }];
  let answers: Array<{ status: number; body: unknown }> = [];
  let next = 0;
  let url = '';
  const server = http.createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (part: Buffer) => parts.push(part));
    req.on('end', () => {
      const send = (status: number, payload: unknown) =>
        res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(payload));
      if (req.method === 'GET' && req.url?.startsWith('/images/'))
        return res.writeHead(200, { 'content-type': 'image/png', 'content-length': String(pngBytes.length) }).end(pngBytes);
      if (req.headers['mj-api-secret'] !== secret) return send(401, { code: 4, description: 'invalid mj-api-secret' });
      const body = parts.length > 0 ? JSON.parse(Buffer.concat(parts).toString('utf8')) : {};
      const path = req.url ?? '';
      if (path.startsWith('/mj/submit/') || path === '/mj/insight-face/swap') {
        submits.push({ path, secret: String(req.headers['mj-api-secret']), body });
        const answer = answers.shift();
        if (answer) return send(answer.status, answer.body);
        if (path === '/mj/submit/upload-discord-images')
          return send(200, { code: 1, description: 'success', result: [`${url}/images/upload-${submits.length}.png`] });
        next += 1;
        const id = `17000000000${String(next).padStart(5, '0')}`;
        tasks.set(id, {
          action: path.split('/').pop()!.toUpperCase(),
          prompt: typeof body.prompt === 'string' ? body.prompt : '',
          steps: script,
          submittedAt: Date.now(),
        });
        return send(200, { code: 1, description: '提交成功', result: id, properties: { discordInstanceId: 'inst-1' } });
      }
      if (path === '/mj/task/list-by-condition' && req.method === 'POST') {
        const found = (body.ids as string[])
          .filter((id) => tasks.has(id))
          .map((id) => {
            const count = (listed.get(id) ?? 0) + 1;
            listed.set(id, count);
            const task = tasks.get(id)!;
            const step = task.steps[Math.min(count, task.steps.length) - 1]!;
            const isSuccess = step.status === 'SUCCESS';
            if (isSuccess) task.finishedAt ??= Date.now();
            return {
              id,
              action: task.action,
              prompt: task.prompt,
              promptEn: `${task.prompt} (en)`,
              description: '/imagine',
              state: '',
              status: step.status,
              progress: step.progress ?? (isSuccess ? '100%' : step.status === 'IN_PROGRESS' ? '46%' : '0%'),
              failReason: step.failReason ?? null,
              submitTime: task.submittedAt,
              startTime: task.submittedAt + 1000,
              finishTime: isSuccess ? task.finishedAt : null,
              imageUrl: isSuccess ? (step.imageUrl ?? `${url}/images/${id}.png`) : null,
              buttons: isSuccess ? [{ customId: `MJ::JOB::upsample::1::${id}`, emoji: '', label: 'U1', style: 2, type: 2 }] : [],
              properties: { finalPrompt: task.prompt },
            };
          });
        return send(200, found);
      }
      const seed = /^\/mj\/task\/([^/]+)\/image-seed$/.exec(path);
      if (seed && req.method === 'GET') {
        seeds.push(seed[1]!);
        return tasks.has(seed[1]!)
          ? send(200, { code: 1, description: 'success', result: '1234567' })
          : send(200, { code: 3, description: 'task not found', result: null });
      }
      send(404, { code: 3, description: 'not found' });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    submits,
    listed,
    seeds,
    nextScript: (steps) => {
      script = steps;
    },
    answerSubmits: (status, body, count = 1) => {
      answers = Array.from({ length: count }, () => ({ status, body }));
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
