import { CreditCardOutlined } from '@ant-design/icons';
import { Button, Card, InputNumber, Space, Typography } from 'antd';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { showError } from '../../../lib/feedback';
import { useStatus } from '../../../lib/status';
import { useStartCardPayment } from '../api/create-card-top-up';
import { quoteCardAmount } from '../api/quote-card-top-up';

/** Top-up by card: an amount (at least StripeMinTopUp) paid on Stripe's Checkout page. */
export function CardTopUpCard() {
  const { t } = useTranslation();
  const { data: status } = useStatus();
  const minimum = Math.max(1, Number(status?.stripe_min_topup) || 1);
  const currency = String(status?.stripe_currency ?? 'usd').toUpperCase();
  const [amount, setAmount] = useState(minimum);
  const [price, setPrice] = useState<string | null>(null);
  const [isPaying, setPaying] = useState(false);
  const startCardPayment = useStartCardPayment();

  useEffect(() => {
    if (amount < minimum) return;
    let isCurrent = true;
    quoteCardAmount(amount)
      .then((value) => isCurrent && setPrice(value))
      .catch(() => isCurrent && setPrice(null));
    return () => {
      isCurrent = false;
    };
  }, [amount, minimum]);

  const pay = async () => {
    if (amount < minimum) {
      showError(t('wallet.msg.amountBelowMinimum', { min: minimum }));
      return;
    }
    setPaying(true);
    try {
      const { pay_link: link } = await startCardPayment.mutateAsync(amount);
      // Stripe's Checkout page, in this tab; it sends the buyer back to /topup?pay=success.
      window.open(link, '_self');
    } catch {
      // shown by the http client
      setPaying(false);
    }
  };

  return (
    <Card
      title={
        <Space>
          <CreditCardOutlined />
          {t('wallet.cardTitle')}
        </Space>
      }
    >
      <Space orientation="vertical" style={{ width: '100%' }}>
        <Space wrap>
          <InputNumber
            aria-label={t('wallet.cardAmount')}
            value={amount}
            precision={0}
            style={{ width: 200 }}
            onChange={(value) => setAmount(Math.max(1, Math.trunc(Number(value) || 1)))}
          />
          <Typography.Text type="secondary">{t('wallet.minimum', { min: minimum })}</Typography.Text>
        </Space>
        {price !== null && <Typography.Text>{t('wallet.toPayIn', { price, currency })}</Typography.Text>}
        <Button type="primary" icon={<CreditCardOutlined />} loading={isPaying} onClick={() => void pay()}>
          {t('wallet.payCard')}
        </Button>
      </Space>
    </Card>
  );
}
