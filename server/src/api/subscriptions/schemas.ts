import { idField, idParam } from '@modelgate/shared';
import { z } from 'zod';

export { createPlanSchema, fundingPreferenceSchema, grantPlanSchema, subscribePlanSchema, updatePlanSchema } from '@modelgate/shared';

export const idParams = z.object({ id: idParam() });
/** POST /api/subscription/self/cancel and /admin/revoke: which subscription. */
export const subscriptionIdBody = z.object({ id: idField() });
