import { idParam } from '@modelgate/shared';
import { z } from 'zod';

export { createPlanSchema, fundingPreferenceSchema, grantPlanSchema, subscribePlanSchema, updatePlanSchema } from '@modelgate/shared';

export const idParams = z.object({ id: idParam() });
/** POST /api/subscription/self/cancel and /admin/revoke: which subscription. */
export const subscriptionIdBody = z.object({ id: z.number({ error: 'id 必须是数字' }).int({ error: 'id 必须是整数' }).positive({ error: 'id 必须是正整数' }).max(2_147_483_647, { error: 'id 超出范围' }) });
