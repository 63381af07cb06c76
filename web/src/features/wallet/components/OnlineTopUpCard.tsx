import { AlipayCircleOutlined, WechatOutlined, WalletOutlined } from '@ant-design/icons';
import type { PaymentMethod } from '@modelgate/shared';
import { Alert, Button, Card, InputNumber, Space, Typography } from 'antd';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { showError } from '../../../lib/feedback';
import { useStatus } from '../../../lib/status';
import { submitPayForm, useStartPayment } from '../api/create-top-up-order';
import { quoteAmount } from '../api/quote-top-up';

/** Online top-up: an amount (at least the minimum, input below 1 raised to 1) paid with zfb or wx. */
export function OnlineTopUpCard() {
  const { t } = useTranslation();
  const { data: status } = useStatus();
  const isEnabled = !!status?.enable_online_topup;
  const minimum = Math.max(1, Number(status?.min_topup) || 1);
  const [amount, setAmount] = useState(minimum);
  const [price, setPrice] = useState<string | null>(null);
  const [paying, setPaying] = useState<PaymentMethod | null>(null);
  const startPayment = useStartPayment();

  useEffect(() => {
    if (!isEnabled || amount < minimum) return;
    let isCurrent = true;
    quoteAmount(amount)
      .then((value) => isCurrent && setPrice(value))
      .catch(() => isCurrent && setPrice(null));
    return () => {
      isCurrent = false;
    };
  }, [amount, isEnabled, minimum]);

  const pay = async (method: PaymentMethod) => {
    if (!isEnabled) {
      showError(t('wallet.msg.onlineTopUpOff'));
      return;
    }
    if (amount < minimum) {
      showError(t('wallet.msg.amountBelowMinimum', { min: minimum }));
      return;
    }
    setPaying(method);
    try {
      submitPayForm(await startPayment.mutateAsync({ amount, method }));
    } catch {
      // shown by the http client
    } finally {
      setPaying(null);
    }
  };

  return (
    <Card
      title={
        <Space>
          <WalletOutlined />
          {t('wallet.onlineTitle')}
        </Space>
      }
    >
      <Space orientation="vertical" style={{ width: '100%' }}>
        {!isEnabled && <Alert type="info" showIcon title={t('wallet.onlineOff')} />}
        <Space wrap>
          <InputNumber
            aria-label={t('wallet.amount')}
            value={amount}
            precision={0}
            style={{ width: 200 }}
            onChange={(value) => setAmount(Math.max(1, Math.trunc(Number(value) || 1)))}
          />
          <Typography.Text type="secondary">{t('wallet.minimum', { min: minimum })}</Typography.Text>
        </Space>
        {isEnabled && price !== null && <Typography.Text>{t('wallet.toPay', { price })}</Typography.Text>}
        <Space wrap>
          <Button icon={<AlipayCircleOutlined />} loading={paying === 'zfb'} onClick={() => void pay('zfb')}>
            {t('wallet.payZfb')}
          </Button>
          <Button icon={<WechatOutlined />} loading={paying === 'wx'} onClick={() => void pay('wx')}>
            {t('wallet.payWx')}
          </Button>
        </Space>
      </Space>
    </Card>
  );
}
