import type { z } from 'zod';
import { invalidInput } from '../lib/errors.js';

/** Parses input at the edge; the first problem becomes a 400 with the field named. */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown): z.infer<S> {
  const result = schema.safeParse(input ?? {});
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  if (!issue) throw invalidInput('参数错误');
  const field = issue.path.join('.');
  throw invalidInput(field ? `${field}: ${issue.message}` : issue.message);
}
