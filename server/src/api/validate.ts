import { fieldMessages, findUncleanText } from '@modelgate/shared';
import type { z } from 'zod';
import { invalidInput } from '../lib/errors.js';

/**
 * Parses input at the edge; the first problem becomes a 400 with the field named. Every string
 * in the input, at any depth, must be clean text (no NUL byte, no lone surrogate): no database
 * stores those alike, so they are refused here once for every route and field.
 */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown): z.infer<S> {
  const unclean = findUncleanText(input);
  if (unclean) throw invalidInput(unclean.length > 0 ? `${unclean.join('.')}: ${fieldMessages.uncleanText}` : fieldMessages.uncleanText);
  const result = schema.safeParse(input ?? {});
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  if (!issue) throw invalidInput('参数错误');
  const field = issue.path.join('.');
  throw invalidInput(field ? `${field}: ${issue.message}` : issue.message);
}
