import type { TableMapper } from '../table-import.js';
import { int, text } from '../values.js';

/** tasks (new-api, with --tasks): asynchronous jobs (Suno, video) and their results. */
export const tasksMapper: TableMapper<'tasks'> = {
  source: 'tasks',
  target: 'tasks',
  noun: 'task',
  naturalKey: 'task_id',
  references: { user_id: 'users', channel_id: 'channels' },
  droppedColumns: ['private_data', 'group'],
  map(row) {
    const id = int(row.id);
    if (id <= 0) return 'it has no id';
    return {
      id,
      created_at: int(row.created_at),
      updated_at: int(row.updated_at),
      task_id: text(row.task_id).slice(0, 191),
      // new-api's task id is the upstream's: polling asks the channel for it.
      upstream_id: text(row.task_id).slice(0, 191),
      platform: text(row.platform).slice(0, 30),
      user_id: int(row.user_id),
      channel_id: int(row.channel_id),
      quota: int(row.quota),
      action: text(row.action).slice(0, 40),
      status: text(row.status).slice(0, 20),
      fail_reason: text(row.fail_reason),
      submit_time: int(row.submit_time),
      start_time: int(row.start_time),
      finish_time: int(row.finish_time),
      progress: text(row.progress).slice(0, 20),
      properties: text(row.properties),
      data: text(row.data),
    };
  },
};

/** midjourneys (new-api, with --tasks): Midjourney jobs. */
export const midjourneysMapper: TableMapper<'midjourneys'> = {
  source: 'midjourneys',
  target: 'midjourneys',
  noun: 'Midjourney job',
  naturalKey: 'mj_id',
  references: { user_id: 'users', channel_id: 'channels' },
  droppedColumns: ['video_urls'],
  map(row) {
    const id = int(row.id);
    if (id <= 0) return 'it has no id';
    return {
      id,
      code: int(row.code),
      user_id: int(row.user_id),
      action: text(row.action).slice(0, 40),
      mj_id: text(row.mj_id).slice(0, 191),
      upstream_id: text(row.mj_id).slice(0, 191),
      video_url: text(row.video_url).slice(0, 2048),
      prompt: text(row.prompt),
      prompt_en: text(row.prompt_en),
      description: text(row.description),
      state: text(row.state),
      submit_time: int(row.submit_time),
      start_time: int(row.start_time),
      finish_time: int(row.finish_time),
      image_url: text(row.image_url),
      status: text(row.status).slice(0, 20),
      progress: text(row.progress).slice(0, 30),
      fail_reason: text(row.fail_reason),
      channel_id: int(row.channel_id),
      quota: int(row.quota),
      buttons: text(row.buttons),
      properties: text(row.properties),
    };
  },
};
