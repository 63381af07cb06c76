import { useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { showError, showSuccess } from '../../../lib/feedback';
import { ApiError } from '../../../lib/http';
import * as api from '../api/channels';
import * as probes from '../api/probes';
import { formatSeconds } from '../components/ChannelCells';

/** Channel row and toolbar actions: each calls the server, reports, and refreshes the list. */
export function useChannelActions() {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const refresh = () => queryClient.invalidateQueries({ queryKey: api.channelsQueryKey });
  const run = async <T,>(call: () => Promise<T>, success?: (result: T) => string): Promise<T | undefined> => {
    try {
      const result = await call();
      if (success) showSuccess(success(result));
      return result;
    } catch {
      return undefined; // the http client showed the server's message
    } finally {
      await refresh();
    }
  };

  return {
    refresh,
    setStatus: (id: number, status: number) => run(() => api.updateChannel({ id, status }), () => t('channels.msg.updated')),
    setPriority: (id: number, priority: number) => api.updateChannel({ id, priority }).finally(refresh),
    setWeight: (id: number, weight: number) => api.updateChannel({ id, weight }).finally(refresh),
    setTagPriority: (tag: string, priority: number) => api.editTag({ tag, priority }).finally(refresh),
    setTagWeight: (tag: string, weight: number) => api.editTag({ tag, weight }).finally(refresh),
    setTagEnabled: (tag: string, isEnabled: boolean) => run(() => api.setTagEnabled(tag, isEnabled), () => t('channels.msg.updated')),
    remove: (id: number) => run(() => api.deleteChannel(id), () => t('channels.msg.deleted')),
    copy: async (id: number) => {
      try {
        await api.copyChannel(id);
        showSuccess(t('channels.msg.copied'));
      } catch (error) {
        if (!(error instanceof ApiError && error.shown)) showError(t('channels.msg.copyFailed'));
      } finally {
        await refresh();
      }
    },
    test: (id: number, name: string, model?: string) =>
      run(() => probes.testChannel(id, model), (time) => t('channels.msg.tested', { name, time: formatSeconds(time) })),
    testAll: () => run(probes.testAllChannels, (message) => message || t('channels.msg.testAllStarted')),
    updateBalance: (id: number, name: string) => run(() => probes.updateBalance(id), (balance) => t('channels.msg.balanceUpdated', { name, balance: balance.toFixed(2) })),
    updateAllBalances: () => run(probes.updateAllBalances, () => t('channels.msg.allBalancesUpdated')),
    deleteDisabled: () => run(api.deleteDisabledChannels, (count) => t('channels.msg.deletedCount', { count })),
    fix: () => run(api.fixChannels, (count) => t('channels.msg.fixed', { count })),
    deleteMany: async (ids: number[]) => {
      if (ids.length === 0) {
        showError(t('channels.msg.deleteSelectionRequired'));
        return undefined;
      }
      return run(() => api.deleteChannels(ids), (count) => t('channels.msg.deletedCount', { count }));
    },
    setTagOf: async (ids: number[], tag: string) => {
      if (ids.length === 0) {
        showError(t('channels.msg.tagChannelsRequired'));
        return false;
      }
      if (tag.trim() === '') {
        showError(t('channels.msg.tagRequired'));
        return false;
      }
      return (await run(() => api.setChannelsTag(ids, tag.trim()), (count) => t('channels.msg.tagSet', { count }))) !== undefined;
    },
  };
}
