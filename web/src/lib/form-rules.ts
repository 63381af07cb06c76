import type { z } from 'zod';

/**
 * Forms check their payload with the API's own request schema (packages/shared), so the console and
 * the server refuse the same things. The first problem comes back as the name the shared message
 * catalogue gives it (`messages`, e.g. tokenMessages), which the screen translates, and the schema's
 * own text for a message with no name there.
 */
export function firstProblem(
  schema: z.ZodType,
  payload: unknown,
  messages: Record<string, unknown>,
): { key: string | null; message: string } | null {
  const result = schema.safeParse(payload);
  if (result.success) return null;
  const message = result.error.issues[0]?.message ?? '';
  const key = Object.entries(messages).find(([, text]) => text === message)?.[0] ?? null;
  return { key, message };
}
