import { z } from 'zod';

const int = () => z.number().int();

/** A drawing (Midjourney) task as an admin reads it (GET /api/mj/): the poll lease and refund bookkeeping stay internal. */
export const drawingTaskSchema = z.strictObject({
  id: int(),
  code: int(),
  user_id: int(),
  action: z.string(),
  mj_id: z.string(),
  prompt: z.string(),
  prompt_en: z.string(),
  description: z.string(),
  state: z.string(),
  submit_time: int(),
  start_time: int(),
  finish_time: int(),
  /** The image's address as shown (through the gateway when MjForwardUrlEnabled). */
  image_url: z.string(),
  status: z.string(),
  progress: z.string(),
  /** In the reader's language. */
  fail_reason: z.string(),
  channel_id: int(),
  quota: int(),
  buttons: z.string(),
  properties: z.string(),
  token_id: int(),
  upstream_id: z.string(),
  video_url: z.string(),
  /** The submit time again (the log table's time column). */
  created_at: int(),
});
export type DrawingTask = z.infer<typeof drawingTaskSchema>;

/** A drawing task as its owner reads it (GET /api/mj/self/): no channel, submit code, upstream state or ids, paying token. */
export const ownDrawingTaskSchema = drawingTaskSchema.omit({
  channel_id: true,
  code: true,
  state: true,
  upstream_id: true,
  token_id: true,
});
export type OwnDrawingTask = z.infer<typeof ownDrawingTaskSchema>;

/** A music or video task as an admin reads it (GET /api/task/); a video adds its length and preview link. */
export const musicTaskSchema = z.strictObject({
  id: int(),
  created_at: int(),
  updated_at: int(),
  task_id: z.string(),
  platform: z.string(),
  user_id: int(),
  channel_id: int(),
  quota: int(),
  action: z.string(),
  status: z.string(),
  /** In the reader's language. */
  fail_reason: z.string(),
  submit_time: int(),
  start_time: int(),
  finish_time: int(),
  progress: z.string(),
  properties: z.string(),
  /** The upstream's result ('' for a video: its addresses stay on the server). */
  data: z.string(),
  token_id: int(),
  upstream_id: z.string(),
  /** A video's length in seconds. */
  video_seconds: z.number().optional(),
  /** A finished video's preview on the console's own API ('' until it is made). */
  preview_url: z.string().optional(),
});
export type MusicTask = z.infer<typeof musicTaskSchema>;

/** A music or video task as its owner reads it (GET /api/task/self): no channel, upstream id or paying token. */
export const ownMusicTaskSchema = musicTaskSchema.omit({ channel_id: true, upstream_id: true, token_id: true });
export type OwnMusicTask = z.infer<typeof ownMusicTaskSchema>;
