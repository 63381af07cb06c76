import { z } from 'zod';

const text = (max: number) => z.string().max(max).default('');

export const emailQuerySchema = z.object({ email: text(200), turnstile: text(4096) });
export const emailBindQuerySchema = z.object({ email: text(200), code: text(64) });
export const passwordResetSchema = z.object({ email: text(200), token: text(128) });
