import { Button, DatePicker, Flex, Typography } from 'antd';
import dayjs, { type Dayjs } from 'dayjs';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { feedback, showError, showSuccess } from '../../../lib/feedback';
import { dateTimeFormat } from '../../../lib/format';
import { useDeleteLogsBefore } from '../api/delete-logs';

/** Clears logs older than a chosen time (default one month ago). */
export function LogCleanup() {
  const { t } = useTranslation();
  const [target, setTarget] = useState<Dayjs | null>(() => dayjs().subtract(1, 'month'));
  const { mutateAsync: deleteLogsBefore, isPending: isClearing } = useDeleteLogsBefore();
  const clear = () => {
    if (!target) {
      showError(t('settingsOps.pickLogTime'));
      return;
    }
    feedback.modal.confirm({
      title: t('settingsOps.clearLogsConfirmTitle'),
      content: t('settingsOps.clearLogsConfirm', { time: target.format(dateTimeFormat) }),
      okText: t('common.confirm'),
      cancelText: t('common.cancel'),
      onOk: async () => {
        try {
          const count = await deleteLogsBefore(target.unix());
          showSuccess(t('settingsOps.logsCleared', { n: count }));
        } catch {
          // the http client already showed the server message
        }
      },
    });
  };
  return (
    <Flex vertical gap={8} style={{ marginBottom: 16 }}>
      <Typography.Text strong>{t('settingsOps.clearLogs')}</Typography.Text>
      <Flex gap={8} wrap>
        <DatePicker
          showTime
          value={target}
          onChange={setTarget}
          aria-label={t('settingsOps.logTime')}
          placeholder={t('settingsOps.logTime')}
        />
        <Button danger onClick={clear} loading={isClearing}>
          {t('settingsOps.clearLogs')}
        </Button>
      </Flex>
    </Flex>
  );
}
