import { Button, Input, Modal, Table, Tag } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { Channel } from '@modelgate/shared';
import type { useChannelActions } from '../hooks/useChannelActions';
import { formatSeconds } from './ChannelCells';

type Actions = ReturnType<typeof useChannelActions>;

/** Test one channel with a chosen model; each tested model shows its time. */
export function ChannelTestModal({ channel, actions, onClose }: { channel: Channel | null; actions: Actions; onClose: () => void }) {
  const { t } = useTranslation();
  const [filter, setFilter] = useState('');
  const [results, setResults] = useState<Record<string, number | 'failed' | 'testing'>>({});
  const models = (channel?.models ?? '')
    .split(',')
    .filter(Boolean)
    .filter((model) => model.toLowerCase().includes(filter.toLowerCase()));
  const test = async (model: string) => {
    if (!channel) return;
    setResults((current) => ({ ...current, [model]: 'testing' }));
    const time = await actions.test(channel.id, channel.name, model);
    setResults((current) => ({ ...current, [model]: time === undefined ? 'failed' : time }));
  };
  const close = () => {
    setResults({});
    setFilter('');
    onClose();
  };
  return (
    <Modal
      title={t('channels.testTitle', { name: channel?.name ?? '' })}
      open={channel !== null}
      onCancel={close}
      footer={null}
      width={640}
      destroyOnHidden
    >
      <Input.Search
        allowClear
        placeholder={t('channels.searchModel')}
        aria-label={t('channels.searchModel')}
        onChange={(event) => setFilter(event.target.value)}
        style={{ marginBottom: 12 }}
      />
      <Table
        size="small"
        rowKey={(model) => model}
        dataSource={models}
        pagination={{ pageSize: 8, hideOnSinglePage: true }}
        columns={[
          { key: 'model', title: t('channels.model'), render: (_v, model: string) => model },
          {
            key: 'result',
            title: t('channels.result'),
            render: (_v, model: string) => {
              const result = results[model];
              if (result === undefined) return null;
              if (result === 'testing') return <Tag>{t('channels.testing')}</Tag>;
              if (result === 'failed') return <Tag color="red">{t('channels.testFailed')}</Tag>;
              return <Tag color="green">{t('channels.seconds', { value: formatSeconds(result) })}</Tag>;
            },
          },
          {
            key: 'action',
            title: t('common.actions'),
            render: (_v, model: string) => (
              <Button size="small" loading={results[model] === 'testing'} onClick={() => void test(model)}>
                {t('channels.test')}
              </Button>
            ),
          },
        ]}
      />
    </Modal>
  );
}
