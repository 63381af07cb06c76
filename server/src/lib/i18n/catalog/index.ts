import { accountTexts } from './accounts.js';
import { adminTexts } from './admin.js';
import { paymentTexts } from './payments.js';
import { providerTexts } from './providers.js';
import { recordTexts } from './records.js';
import { relayTexts } from './relay.js';

/**
 * One catalog entry: a Chinese text exactly as the source writes it, a template literal's `${…}`
 * parts written `{0}`, `{1}`, … in order, and its English with the same parts (in any order).
 * server/test/i18n/catalog.test.ts fails for a Chinese literal of server/src or
 * packages/shared/src without an entry here, and for an entry no source has any more.
 */
export type CatalogEntry = readonly [zh: string, en: string];

export const catalog: readonly CatalogEntry[] = [
  ...adminTexts,
  ...accountTexts,
  ...relayTexts,
  ...providerTexts,
  ...recordTexts,
  ...paymentTexts,
];
