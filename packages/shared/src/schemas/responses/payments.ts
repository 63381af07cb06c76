import { z } from 'zod';

/** The media type of the Epay notify's answer (GET/POST /api/user/epay/notify): plain text, not the JSON envelope. */
export const epayNotifyMediaType = 'text/plain';

/** The Epay notify's answer, the text the gateway expects: `success` (handled, stop retrying) or `fail`. */
export const epayNotifyReplySchema = z.enum(['success', 'fail']);
export type EpayNotifyReply = z.infer<typeof epayNotifyReplySchema>;
