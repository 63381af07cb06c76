import type { ChannelKey } from '@modelgate/shared';
import { http } from '../../../lib/http';

/** POST /api/channel/:id/key: the stored key of a channel, root only, on an explicit reveal (never cached). */
export const revealChannelKey = (id: number) => http.post<ChannelKey>(`/api/channel/${id}/key`);
