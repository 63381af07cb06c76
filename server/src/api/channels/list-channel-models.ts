import type { AppContext } from '../../context.js';

/** GET /api/channel/models: every model any channel lists, as [{id}] sorted by name. */
export async function listChannelModels(ctx: AppContext): Promise<Array<{ id: string }>> {
  const rows = await ctx.storage.db.selectFrom('channels').select('models').execute();
  const names = new Set(
    rows.flatMap((row) =>
      row.models
        .split(',')
        .map((name) => name.trim())
        .filter(Boolean),
    ),
  );
  return [...names].sort().map((id) => ({ id }));
}

/** GET /api/channel/models_enabled: models with at least one enabled ability. */
export async function listEnabledModels(ctx: AppContext): Promise<string[]> {
  const rows = await ctx.storage.db.selectFrom('abilities').select('model').distinct().where('enabled', '=', 1).execute();
  return rows.map((row) => row.model).sort();
}
