import { statusQueryKey } from '../../../lib/status';

/** Query keys the settings read and refresh. */
export const settingsKeys = {
  /** GET /api/option/. */
  options: ['options'] as const,
  /** The platform status: several options are in it, so a saved option refreshes it too. */
  status: statusQueryKey,
  /** GET /api/channel/models_enabled. */
  enabledModels: ['settings-ops', 'models-enabled'] as const,
  /** The usage log's queries (features/logs): clearing logs refreshes them. */
  logs: ['logs'] as const,
};
