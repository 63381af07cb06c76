import { GiftOutlined, LinkOutlined } from '@ant-design/icons';
import { Button, Card, Input, Space, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { showError, showSuccess } from '../../../lib/feedback';
import { renderQuota } from '../../../lib/format';
import { isHttpUrl } from '../../../lib/rich-text';
import { useStatus } from '../../../lib/status';
import { useRedeemCode } from '../api/redeem-code';

/** Redeem a code; the top-up link (when set) leads to where codes are bought. */
export function RedeemCard() {
  const { t } = useTranslation();
  const redeemCode = useRedeemCode();
  const { data: status } = useStatus();
  const [key, setKey] = useState('');
  const [isRedeeming, setRedeeming] = useState(false);
  const [gained, setGained] = useState<number | null>(null);

  const redeem = async () => {
    if (key.trim() === '') {
      showError(t('wallet.msg.keyRequired'));
      return;
    }
    setRedeeming(true);
    try {
      const quota = await redeemCode.mutateAsync(key.trim());
      showSuccess(t('wallet.msg.redeemed'));
      setGained(quota);
      setKey('');
    } catch {
      // shown by the http client
    } finally {
      setRedeeming(false);
    }
  };

  const openTopUpLink = () => {
    const link = status?.top_up_link;
    // Only http(s): a link stored before the server checked it could be javascript:.
    if (!link || !isHttpUrl(link)) {
      showError(t('wallet.msg.topUpLinkMissing'));
      return;
    }
    window.open(link, '_blank', 'noopener');
  };

  return (
    <Card
      title={
        <Space>
          <GiftOutlined />
          {t('wallet.redeemTitle')}
        </Space>
      }
    >
      <Space orientation="vertical" style={{ width: '100%' }}>
        <Space.Compact style={{ width: '100%' }}>
          <Input
            aria-label={t('wallet.code')}
            placeholder={t('wallet.codePlaceholder')}
            value={key}
            onChange={(event) => setKey(event.target.value)}
            onPressEnter={() => void redeem()}
            allowClear
          />
          <Button type="primary" loading={isRedeeming} onClick={() => void redeem()}>
            {t('wallet.redeem')}
          </Button>
        </Space.Compact>
        {gained !== null && (
          <Typography.Text type="success">{t('wallet.gained', { quota: renderQuota(gained, status ?? null) })}</Typography.Text>
        )}
        <Button icon={<LinkOutlined />} onClick={openTopUpLink}>
          {t('wallet.buyCodes')}
        </Button>
      </Space>
    </Card>
  );
}
