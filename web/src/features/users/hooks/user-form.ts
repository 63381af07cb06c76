import { accountMessages, createUserSchema, updateUserSchema, type CreateUserPayload, type UpdateUserPayload } from '@modelgate/shared';
import { firstProblem } from '../../../lib/form-rules';

/** A message the user forms show: a key under users, or the API schema's own text. */
export type UserFormProblem = { key: string | null; message: string };

/** The add form's payload checked by createUserSchema, or its first problem. */
export function createUserPayloadOf(values: {
  username?: string;
  display_name?: string;
  password?: string;
}): { payload: CreateUserPayload } | { problem: UserFormProblem } {
  const username = values.username?.trim() ?? '';
  const payload: CreateUserPayload = { username, password: values.password ?? '', display_name: values.display_name?.trim() || username };
  const problem = firstProblem(createUserSchema, payload, accountMessages);
  return problem ? { problem } : { payload };
}

/** The editor's payload checked by updateUserSchema (an empty password is left out: unchanged), or its first problem. */
export function updateUserPayloadOf(
  id: number,
  values: { username: string; display_name?: string; password?: string; group: string; quota: number },
): { payload: UpdateUserPayload } | { problem: UserFormProblem } {
  const payload: UpdateUserPayload = {
    id,
    username: values.username.trim(),
    display_name: values.display_name?.trim() ?? '',
    group: values.group,
    quota: Math.trunc(Number(values.quota) || 0),
    ...(values.password ? { password: values.password } : {}),
  };
  const problem = firstProblem(updateUserSchema, payload, accountMessages);
  return problem ? { problem } : { payload };
}
