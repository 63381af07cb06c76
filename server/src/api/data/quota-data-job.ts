import type { FastifyBaseLogger } from 'fastify';
import type { AppContext } from '../../context.js';
import { aggregateQuotaData } from './aggregate-quota-data.js';

/**
 * Runs the quota_data aggregation every DataExportInterval minutes (re-read before each wait) while
 * DataExportEnabled is on. Returns the stop function for ctx.onClose; it waits for a running pass.
 */
export function startQuotaDataJob(ctx: AppContext, log: FastifyBaseLogger): () => Promise<void> {
  let timer: NodeJS.Timeout | null = null;
  let current: Promise<void> | null = null;
  let isStopped = false;

  const schedule = () => {
    if (isStopped) return;
    const minutes = Math.max(1, ctx.options.number('DataExportInterval'));
    timer = setTimeout(run, minutes * 60_000);
    timer.unref();
  };

  function run() {
    timer = null;
    const pass = ctx.options.bool('DataExportEnabled') ? aggregateQuotaData(ctx) : Promise.resolve(0);
    current = pass
      .then((folded) => {
        if (folded > 0) log.debug({ folded }, 'quota data aggregated');
      })
      .catch((error: unknown) => log.error({ err: error }, 'quota data aggregation failed'))
      .finally(() => {
        current = null;
        schedule();
      });
  }

  schedule();
  return async () => {
    isStopped = true;
    if (timer) clearTimeout(timer);
    await current;
  };
}
