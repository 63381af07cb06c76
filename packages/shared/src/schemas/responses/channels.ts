import { z } from 'zod';
import { pageOf } from '../envelope.js';

/** A channel as the list, search and detail routes answer it: every column but the key (revealed to the root alone). */
export const channelSchema = z.strictObject({
  id: z.number().int(),
  type: z.number().int(),
  openai_organization: z.string(),
  test_model: z.string(),
  /** 1 enabled, 2 disabled by an admin, 3 disabled automatically. */
  status: z.number().int(),
  name: z.string(),
  weight: z.number().int(),
  created_time: z.number().int(),
  test_time: z.number().int(),
  /** Milliseconds of the last test. */
  response_time: z.number().int(),
  base_url: z.string(),
  other: z.string(),
  /** The provider's balance, in its own unit (a decimal). */
  balance: z.number(),
  balance_updated_time: z.number().int(),
  models: z.string(),
  group: z.string(),
  used_quota: z.number().int(),
  model_mapping: z.string(),
  status_code_mapping: z.string(),
  priority: z.number().int(),
  auto_ban: z.number().int(),
  other_info: z.string(),
  tag: z.string(),
  setting: z.string(),
  param_override: z.string(),
  max_input_tokens: z.number().int(),
});
export type Channel = z.infer<typeof channelSchema>;

/** A tag row of the list's tag mode: the tag's channels as `children`, aggregated (status 1 if any child is enabled). */
export const channelTagRowSchema = z.strictObject({
  is_tag: z.literal(true),
  tag: z.string(),
  name: z.string(),
  type: z.number().int(),
  status: z.number().int(),
  priority: z.number().int(),
  weight: z.number().int(),
  models: z.string(),
  group: z.string(),
  used_quota: z.number().int(),
  balance: z.number(),
  response_time: z.number().int(),
  test_time: z.number().int(),
  created_time: z.number().int(),
  children: z.array(channelSchema),
});
export type ChannelTagRow = z.infer<typeof channelTagRowSchema>;

/** One item of the channel list: a channel, or in tag mode a tag row. */
export const channelListItemSchema = z.union([channelTagRowSchema, channelSchema]);
export type ChannelListItem = z.infer<typeof channelListItemSchema>;

/** GET /api/channel/ and /api/channel/search: a page of channels or tag rows. */
export const channelPageSchema = pageOf(channelListItemSchema);

/** Models of a saved channel that no price or ratio covers (the relay refuses them; empty in self-use mode). */
const unpricedModels = z.array(z.string());

/** POST /api/channel/: the new channels' ids and their models without a price. */
export const createdChannelsSchema = z.strictObject({ ids: z.array(z.number().int()), unpriced_models: unpricedModels });
export type CreatedChannels = z.infer<typeof createdChannelsSchema>;

/** PUT /api/channel/: the saved channel and its models without a price. */
export const updatedChannelSchema = channelSchema.extend({ unpriced_models: unpricedModels });
export type UpdatedChannel = z.infer<typeof updatedChannelSchema>;

/** POST /api/channel/:id/key (root only): the channel's stored key. */
export const channelKeySchema = z.strictObject({ key: z.string() });
export type ChannelKey = z.infer<typeof channelKeySchema>;

/** POST /api/channel/copy/:id: the copy's id. */
export const copiedChannelSchema = z.strictObject({ id: z.number().int() });
export type CopiedChannel = z.infer<typeof copiedChannelSchema>;

/** How many channels a batch route deleted, tagged, edited or fixed. */
export const channelCountSchema = z.number().int();

/** GET /api/channel/models: every model any channel lists, sorted. */
export const channelModelsSchema = z.array(z.strictObject({ id: z.string() }));
export type ChannelModels = z.infer<typeof channelModelsSchema>;

/** GET /api/channel/models_enabled, /fetch_models: model names. */
export const channelModelNamesSchema = z.array(z.string());

/** One field the channel form renders for a type. */
export const channelTypeFieldSchema = z.strictObject({
  name: z.enum(['other', 'openai_organization', 'base_url']),
  label: z.string(),
  placeholder: z.string().optional(),
  required: z.boolean().optional(),
});
export type ChannelTypeField = z.infer<typeof channelTypeFieldSchema>;

/** A channel type's form metadata (its names and hints in the viewer's language). */
export const channelTypeSchema = z.strictObject({
  type: z.number().int(),
  displayName: z.string(),
  keyHint: z.string(),
  defaultBaseURL: z.string(),
  extraFields: z.array(channelTypeFieldSchema),
  defaultModels: z.array(z.string()),
  slug: z.string(),
  endpoints: z.array(z.string()),
  hasBalance: z.boolean(),
  /** The type checks key/other/base URL on create and update. */
  validatesKey: z.boolean(),
  /** "Fetch models" uses the provider's own list. */
  hasModelList: z.boolean(),
});
export type ChannelType = z.infer<typeof channelTypeSchema>;

/** GET /api/channel/test/:id answers the test's seconds beside `data`. */
export const channelTestBeside = { time: z.number() };

/** GET /api/channel/update_balance/:id answers the balance beside `data`. */
export const channelBalanceBeside = { balance: z.number() };

/** GET /api/channel/update_balance: how many channels had their balance read. */
export const balancesUpdatedSchema = z.strictObject({ updated: z.number().int() });
export type BalancesUpdated = z.infer<typeof balancesUpdatedSchema>;

/** GET /api/group/: the group names (the keys of GroupRatio). */
export const groupNamesSchema = z.array(z.string());
