import { useTranslation } from 'react-i18next';
import { showError, showSuccess } from '../../../lib/feedback';
import { ApiError } from '../../../lib/http';
import { useCopyChannel } from '../api/copy-channel';
import { useDeleteChannel } from '../api/delete-channel';
import { useDeleteChannels } from '../api/delete-channels';
import { useDeleteDisabledChannels } from '../api/delete-disabled-channels';
import { useEditChannelTag } from '../api/edit-channel-tag';
import { useFixChannels } from '../api/fix-channels';
import { useSetChannelsTag } from '../api/set-channels-tag';
import { useSetTagStatus } from '../api/set-tag-status';
import { useTestAllChannels } from '../api/test-all-channels';
import { useTestChannel } from '../api/test-channel';
import { useUpdateAllBalances } from '../api/update-all-balances';
import { useUpdateBalance } from '../api/update-balance';
import { useUpdateChannel } from '../api/update-channel';
import { formatSeconds } from '../components/ChannelCells';

/** Channel row and toolbar actions: each calls the server and reports; its hook refreshes the list. */
export function useChannelActions() {
  const { t } = useTranslation();
  const updateChannel = useUpdateChannel();
  const editTag = useEditChannelTag();
  const setTagStatus = useSetTagStatus();
  const deleteChannel = useDeleteChannel();
  const copyChannel = useCopyChannel();
  const testChannel = useTestChannel();
  const testAllChannels = useTestAllChannels();
  const updateBalance = useUpdateBalance();
  const updateAllBalances = useUpdateAllBalances();
  const deleteDisabled = useDeleteDisabledChannels();
  const fixChannels = useFixChannels();
  const deleteChannels = useDeleteChannels();
  const setChannelsTag = useSetChannelsTag();
  const run = async <T>(call: () => Promise<T>, success?: (result: T) => string): Promise<T | undefined> => {
    try {
      const result = await call();
      if (success) showSuccess(success(result));
      return result;
    } catch {
      return undefined; // the http client showed the server's message
    }
  };

  return {
    setStatus: (id: number, status: 1 | 2 | 3) =>
      run(
        () => updateChannel.mutateAsync({ id, status }),
        () => t('channels.msg.updated'),
      ),
    setPriority: (id: number, priority: number) => updateChannel.mutateAsync({ id, priority }),
    setWeight: (id: number, weight: number) => updateChannel.mutateAsync({ id, weight }),
    setTagPriority: (tag: string, priority: number) => editTag.mutateAsync({ tag, priority }),
    setTagWeight: (tag: string, weight: number) => editTag.mutateAsync({ tag, weight }),
    setTagEnabled: (tag: string, isEnabled: boolean) =>
      run(
        () => setTagStatus.mutateAsync({ tag, isEnabled }),
        () => t('channels.msg.updated'),
      ),
    remove: (id: number) =>
      run(
        () => deleteChannel.mutateAsync(id),
        () => t('channels.msg.deleted'),
      ),
    copy: async (id: number) => {
      try {
        await copyChannel.mutateAsync(id);
        showSuccess(t('channels.msg.copied'));
      } catch (error) {
        if (!(error instanceof ApiError && error.shown)) showError(t('channels.msg.copyFailed'));
      }
    },
    test: (id: number, name: string, model?: string) =>
      run(
        () => testChannel.mutateAsync({ id, model }),
        (time) => t('channels.msg.tested', { name, time: formatSeconds(time) }),
      ),
    testAll: () =>
      run(
        () => testAllChannels.mutateAsync(),
        (message) => message || t('channels.msg.testAllStarted'),
      ),
    updateBalance: (id: number, name: string) =>
      run(
        () => updateBalance.mutateAsync(id),
        (balance) => t('channels.msg.balanceUpdated', { name, balance: balance.toFixed(2) }),
      ),
    updateAllBalances: () =>
      run(
        () => updateAllBalances.mutateAsync(),
        () => t('channels.msg.allBalancesUpdated'),
      ),
    deleteDisabled: () =>
      run(
        () => deleteDisabled.mutateAsync(),
        (count) => t('channels.msg.deletedCount', { count }),
      ),
    fix: () =>
      run(
        () => fixChannels.mutateAsync(),
        (count) => t('channels.msg.fixed', { count }),
      ),
    deleteMany: async (ids: number[]) => {
      if (ids.length === 0) {
        showError(t('channels.msg.deleteSelectionRequired'));
        return undefined;
      }
      return run(
        () => deleteChannels.mutateAsync(ids),
        (count) => t('channels.msg.deletedCount', { count }),
      );
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
      return (
        (await run(
          () => setChannelsTag.mutateAsync({ ids, tag: tag.trim() }),
          (count) => t('channels.msg.tagSet', { count }),
        )) !== undefined
      );
    },
  };
}
