import { fetchMjTasks } from '../providers/midjourney/platform.js';
import { fetchSunoTasks } from '../providers/suno/platform.js';
import { notifyMjHook } from './mj-task-object.js';
import type { PolledPlatform } from './poller.js';
import { videoPlatform } from './video.js';

/** Suno music and lyrics, in `tasks` (platform "suno"): the songs are kept as the task's data. */
export const sunoPlatform: PolledPlatform = {
  table: 'tasks',
  platform: 'suno',
  fetch: async (channel, target, upstreamIds, signal) =>
    (await fetchSunoTasks(channel.adapter!, target, upstreamIds, signal)).map(({ data, ...state }) => ({ ...state, columns: { data } })),
};

/** Midjourney drawings, in `midjourneys`, polled by list-by-condition; the notify hook is told of changes. */
export const midjourneyPlatform: PolledPlatform = {
  table: 'midjourneys',
  fetch: async (channel, target, upstreamIds, signal) =>
    (await fetchMjTasks(channel.adapter!, target, upstreamIds, signal)).map((state) => ({
      upstreamId: state.upstreamId,
      status: state.status,
      failReason: state.failReason,
      progress: state.progress,
      startTime: state.startTime,
      finishTime: state.finishTime,
      columns: {
        image_url: state.imageUrl,
        video_url: state.videoUrl,
        prompt_en: state.promptEn,
        description: state.description,
        state: state.state,
        ...(state.buttons ? { buttons: state.buttons } : {}),
        ...(state.properties ? { properties: state.properties } : {}),
      },
    })),
  changed: notifyMjHook,
};

export const taskPlatforms: readonly PolledPlatform[] = [sunoPlatform, midjourneyPlatform, videoPlatform];
