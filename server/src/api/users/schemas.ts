import { z } from 'zod';

export {
  affTransferSchema,
  createUserSchema,
  loginSchema,
  manageUserSchema,
  registerSchema,
  updateSelfSchema,
  updateUserSchema,
  userPageQuerySchema,
  userSearchQuerySchema,
  userSettingSchema,
} from '@modelgate/shared';

export const userIdParamsSchema = z.object({ id: z.coerce.number().int().positive().max(2_147_483_647) });
