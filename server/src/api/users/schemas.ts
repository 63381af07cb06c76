import { idParam } from '@modelgate/shared';
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

export const userIdParamsSchema = z.object({ id: idParam() });
