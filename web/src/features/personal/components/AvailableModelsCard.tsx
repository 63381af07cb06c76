import { Button, Card, Empty, Space, Tag } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { copyText } from '../../../lib/clipboard';
import { useUserModels } from '../../../lib/api/user-models';

const collapsedCount = 10;

/** The models this user may call; the list collapses after 10 entries; click copies a name. */
export function AvailableModelsCard() {
  const { t } = useTranslation();
  const models = useUserModels();
  const [isExpanded, setExpanded] = useState(false);
  const list = models.data ?? [];
  const shown = isExpanded ? list : list.slice(0, collapsedCount);
  return (
    <Card title={t('personal.models')} loading={models.isPending}>
      {list.length === 0 ? (
        <Empty description={t('personal.noModels')} />
      ) : (
        <Space size={[6, 6]} wrap>
          {shown.map((model) => (
            <Tag key={model} style={{ cursor: 'pointer' }} onClick={() => void copyText(model)}>
              {model}
            </Tag>
          ))}
          {list.length > collapsedCount && (
            <Button type="link" size="small" onClick={() => setExpanded(!isExpanded)}>
              {isExpanded ? t('common.collapse') : t('personal.moreModels', { count: list.length - collapsedCount })}
            </Button>
          )}
        </Space>
      )}
    </Card>
  );
}
