import { CopyOutlined } from '@ant-design/icons';
import { Button, Card, Col, Input, Row, Space, Statistic } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { copyText } from '../../../lib/clipboard';
import { renderQuota } from '../../../lib/format';
import { useStatus } from '../../../lib/status';
import type { SelfUser } from '@modelgate/shared';
import { useAffCode } from '../api/get-aff-code';
import { TransferModal } from './TransferModal';

/** Invite link, rewards and the transfer of invite earnings into the balance. */
export function InviteCard({ user }: { user: SelfUser }) {
  const { t } = useTranslation();
  const { data: status } = useStatus();
  const affCode = useAffCode();
  const [isTransferOpen, setTransferOpen] = useState(false);
  const link = affCode.data ? `${window.location.origin}/register?aff=${affCode.data}` : '';
  return (
    <Card title={t('personal.inviteTitle')}>
      <Row gutter={16} style={{ marginBottom: 16 }}>
        <Col span={8}>
          <Statistic title={t('personal.affPending')} value={renderQuota(user.aff_quota ?? 0, status ?? null)} />
        </Col>
        <Col span={8}>
          <Statistic title={t('personal.affTotal')} value={renderQuota(user.aff_history_quota ?? 0, status ?? null)} />
        </Col>
        <Col span={8}>
          <Statistic title={t('personal.affCount')} value={user.aff_count ?? 0} />
        </Col>
      </Row>
      <Space.Compact style={{ width: '100%', marginBottom: 12 }}>
        <Input readOnly value={link} aria-label={t('personal.inviteLink')} placeholder={t('common.loading')} />
        <Button icon={<CopyOutlined />} disabled={!link} onClick={() => void copyText(link)}>
          {t('common.copy')}
        </Button>
      </Space.Compact>
      <Button block disabled={(user.aff_quota ?? 0) <= 0} onClick={() => setTransferOpen(true)}>
        {t('personal.transfer')}
      </Button>
      <TransferModal open={isTransferOpen} available={user.aff_quota ?? 0} onClose={() => setTransferOpen(false)} />
    </Card>
  );
}
