import { z } from 'zod';
import { RelayError } from '../errors.js';

/** A drawing action's per-call model (new-api's names, so prices carried over keep working). */
export const mjActionModels: Readonly<Record<string, string>> = {
  IMAGINE: 'mj_imagine',
  UPSCALE: 'mj_upscale',
  VARIATION: 'mj_variation',
  REROLL: 'mj_reroll',
  DESCRIBE: 'mj_describe',
  BLEND: 'mj_blend',
  SHORTEN: 'mj_shorten',
  MODAL: 'mj_modal',
  ZOOM: 'mj_zoom',
  CUSTOM_ZOOM: 'mj_custom_zoom',
  PAN: 'mj_pan',
  INPAINT: 'mj_inpaint',
  HIGH_VARIATION: 'mj_high_variation',
  LOW_VARIATION: 'mj_low_variation',
  SWAP_FACE: 'swap_face',
  UPLOAD: 'mj_upload',
  VIDEO: 'mj_video',
  EDITS: 'mj_edits',
};

/** An image as Midjourney-Proxy takes it: a data URL or bare base64 (bounded by the body limit). */
const image = z.string().min(1);
const prompt = z.string().trim().min(1, 'prompt 不能为空').max(8192);
const taskId = z.string().trim().min(1, 'taskId 不能为空').max(191);
/** Fields every submit may carry: the caller's state, its notify hook, the Plus account filter. */
const common = {
  state: z.string().max(2000).optional(),
  notifyHook: z
    .string()
    .max(2048)
    .regex(/^https?:\/\/[^\s]+$/i, 'notifyHook 必须是 http(s) 地址')
    .optional()
    .or(z.literal('')),
  accountFilter: z.record(z.string(), z.unknown()).optional(),
  botType: z.enum(['MID_JOURNEY', 'NIJI_JOURNEY', 'INSIGHT_FACE']).optional(),
};

/** What a submit is, once its body is read: the action, and the task it acts on (a follow-up). */
export interface MjSubmit {
  action: string;
  /** The gateway id of the task acted on; the body's reference is rewritten to the upstream's. */
  refTaskId: string | null;
  prompt: string;
  /** The body to send, with `taskId` (or simple-change's `content`) still the gateway's. */
  body: Record<string, unknown>;
  /** Puts the upstream id of the task acted on into the body. */
  withUpstreamId(upstreamId: string): Record<string, unknown>;
}

/**
 * The action of a Plus button (`customId`): `MJ::JOB::upsample::2::<hash>`, `MJ::JOB::variation::1::…`,
 * `MJ::JOB::low_variation::…`, `MJ::JOB::pan_left::…`, `MJ::JOB::reroll::0::…`, `MJ::Outpaint::50::…`,
 * `MJ::CustomZoom::…`, `MJ::Inpaint::…`. Unknown buttons are the request's error.
 */
export function actionOfCustomId(customId: string): string {
  const parts = customId.split('::');
  const name = (parts[1] === 'JOB' ? parts[2] : parts[1]) ?? '';
  if (name.includes('upsample')) return 'UPSCALE';
  if (name === 'variation') return 'VARIATION';
  if (name === 'low_variation') return 'LOW_VARIATION';
  if (name === 'high_variation') return 'HIGH_VARIATION';
  if (name.includes('pan')) return 'PAN';
  if (name.includes('reroll')) return 'REROLL';
  if (name === 'Outpaint') return 'ZOOM';
  if (name === 'CustomZoom') return 'CUSTOM_ZOOM';
  if (name === 'Inpaint') return 'INPAINT';
  throw new RelayError(400, 'invalid_request', `未知的 customId：${customId.slice(0, 100)}`);
}

const changeActions = { U: 'UPSCALE', V: 'VARIATION', R: 'REROLL' } as const;

type Reader = (body: Record<string, unknown>) => MjSubmit;

const plain =
  (action: string, schema: z.ZodType<Record<string, unknown>>): Reader =>
  (body) => {
    const data = parse(schema, body);
    return { action, refTaskId: null, prompt: typeof data.prompt === 'string' ? data.prompt : '', body: data, withUpstreamId: () => data };
  };

/** A follow-up naming its task by `taskId`; `action` picks the action from the checked body. */
const onTask =
  (schema: z.ZodType<Record<string, unknown> & { taskId: string }>, action: (data: Record<string, unknown>) => string): Reader =>
  (body) => {
    const data = parse(schema, body);
    return {
      action: action(data),
      refTaskId: data.taskId,
      prompt: typeof data.prompt === 'string' ? data.prompt : '',
      body: data,
      withUpstreamId: (upstreamId) => ({ ...data, taskId: upstreamId }),
    };
  };

function parse<T>(schema: z.ZodType<T>, body: unknown): T {
  const parsed = schema.safeParse(body);
  if (parsed.success) return parsed.data;
  throw new RelayError(
    400,
    'invalid_request',
    parsed.error.issues.map((issue) => `${issue.path.join('.') || 'body'}: ${issue.message}`).join('; '),
  );
}

/** The submit routes under `/mj/` and how each body is read (unknown fields are passed on). */
export const mjSubmitReaders: Readonly<Record<string, Reader>> = {
  'submit/imagine': plain('IMAGINE', z.looseObject({ ...common, prompt, base64Array: z.array(image).max(5).optional() })),
  'submit/describe': plain(
    'DESCRIBE',
    z
      .looseObject({ ...common, base64: image.optional(), link: z.string().max(2048).optional() })
      .refine((data) => !!data.base64 || !!data.link, { message: '需要 base64 或 link' }),
  ),
  'submit/blend': plain(
    'BLEND',
    z.looseObject({
      ...common,
      base64Array: z.array(image).min(2).max(5),
      dimensions: z.enum(['PORTRAIT', 'SQUARE', 'LANDSCAPE']).optional(),
    }),
  ),
  'submit/shorten': plain('SHORTEN', z.looseObject({ ...common, prompt })),
  'submit/upload-discord-images': plain('UPLOAD', z.looseObject({ ...common, base64Array: z.array(image).min(1).max(10) })),
  'submit/edits': plain('EDITS', z.looseObject({ ...common, prompt, image: image.optional(), maskBase64: image.optional() })),
  'insight-face/swap': plain('SWAP_FACE', z.looseObject({ ...common, sourceBase64: image, targetBase64: image })),
  'submit/change': onTask(
    z
      .looseObject({
        ...common,
        taskId,
        action: z.enum(['UPSCALE', 'VARIATION', 'REROLL']),
        index: z.number().int().min(1).max(4).optional(),
      })
      .refine((data) => data.action === 'REROLL' || data.index !== undefined, {
        message: 'UPSCALE 和 VARIATION 需要 index（1-4）',
        path: ['index'],
      }),
    (data) => String(data.action),
  ),
  'submit/action': onTask(z.looseObject({ ...common, taskId, customId: z.string().min(1).max(500) }), (data) =>
    actionOfCustomId(String(data.customId)),
  ),
  'submit/modal': onTask(
    z.looseObject({ ...common, taskId, prompt: z.string().max(8192).optional(), maskBase64: image.optional() }),
    () => 'MODAL',
  ),
  'submit/video': (body) => {
    const data = parse(
      z.looseObject({
        ...common,
        prompt: z.string().max(8192).optional(),
        taskId: taskId.optional(),
        index: z.number().int().min(0).max(4).optional(),
        image: image.optional(),
      }),
      body,
    );
    const ref = data.taskId ?? null;
    return {
      action: 'VIDEO',
      refTaskId: ref,
      prompt: data.prompt ?? '',
      body: data,
      withUpstreamId: (upstreamId) => (ref ? { ...data, taskId: upstreamId } : data),
    };
  },
  // `{content: "<taskId> U1"}`: U1–U4, V1–V4 or R on the task.
  'submit/simple-change': (body) => {
    const data = parse(z.looseObject({ ...common, content: z.string().max(300) }), body);
    const match = /^\s*(\S{1,191})\s+([UV])([1-4])\s*$|^\s*(\S{1,191})\s+(R)\s*$/i.exec(data.content);
    if (!match) throw new RelayError(400, 'invalid_request', 'content 应为 "<任务ID> U1-U4 | V1-V4 | R"');
    const ref = (match[1] ?? match[4])!;
    const letter = (match[2] ?? match[5])!.toUpperCase() as keyof typeof changeActions;
    const rest = match[3] ? `${letter}${match[3]}` : letter;
    return {
      action: changeActions[letter],
      refTaskId: ref,
      prompt: '',
      body: data,
      withUpstreamId: (upstreamId) => ({ ...data, content: `${upstreamId} ${rest}` }),
    };
  },
};

const modeFlags = /\s*--(?:fast|relax|turbo)\b/gi;

/**
 * The speed mode: a `/mj-fast`, `/mj-turbo` or `/mj-relax` prefix replaces the prompt's mode flag
 * with its own; with no prefix, MjModeClearEnabled removes the flags (the channel's default mode).
 */
export function promptWithMode(text: string, mode: string | null, isClearing: boolean): string {
  if (!mode && !isClearing) return text;
  const cleared = text.replace(modeFlags, '').trim();
  return mode ? `${cleared} --${mode}` : cleared;
}
