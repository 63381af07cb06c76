import { secondFactorCodeSchema, twoFactorMessages } from '@modelgate/shared';
import type { TFunction } from 'i18next';
import { firstProblem } from './form-rules';

/**
 * The rule of a second-factor code field (sign-in's second step, TOTP enrolment, the personal code
 * prompts): the payload is checked by the API's own schema, its message shown under twoFactor.*.
 */
export const secondFactorCodeRule = (t: TFunction) => ({
  validator: async (_rule: unknown, value: unknown) => {
    const problem = firstProblem(secondFactorCodeSchema, { code: typeof value === 'string' ? value : '' }, twoFactorMessages);
    if (problem) throw new Error(problem.key ? t(`twoFactor.${problem.key}`) : problem.message);
  },
});
