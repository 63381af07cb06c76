import { Form, Input, Modal, QRCode, Spin, Steps, Typography } from 'antd';
import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { TotpSetup } from '@modelgate/shared';
import { useEnableTotp } from '../api/enable-totp';
import { startTotpSetup } from '../api/start-totp-setup';
import { secondFactorCodeRule } from '../../../lib/second-factor-code';

/**
 * TOTP enrolment: the server makes a secret; the QR code (its otpauth:// URI, drawn here) or the
 * secret goes into an authenticator app; the app's first code finishes it. Answers the recovery codes.
 */
export function TotpEnrolModal({
  open,
  onEnrolled,
  onClose,
}: {
  open: boolean;
  onEnrolled: (codes: string[]) => void;
  onClose: () => void;
}) {
  const { t } = useTranslation();
  const [form] = Form.useForm<{ code: string }>();
  const [setup, setSetup] = useState<TotpSetup | null>(null);
  const enable = useEnableTotp();
  const [loading, setLoading] = useState(false);
  const closeRef = useRef(onClose);
  useEffect(() => {
    closeRef.current = onClose;
  });

  // One new secret each time the modal opens (a re-render must not start another enrolment).
  useEffect(() => {
    if (!open) return;
    let isCurrent = true;
    setSetup(null);
    startTotpSetup()
      .then((answer) => isCurrent && setSetup(answer))
      .catch(() => isCurrent && closeRef.current());
    return () => {
      isCurrent = false;
    };
  }, [open]);

  const submit = async () => {
    const { code } = await form.validateFields();
    setLoading(true);
    try {
      const { backup_codes: codes } = await enable.mutateAsync(code.trim());
      form.resetFields();
      onEnrolled(codes);
    } catch {
      // shown by the http client
    } finally {
      setLoading(false);
    }
  };

  return (
    <Modal
      open={open}
      title={t('twoFactor.enrolTitle')}
      onCancel={onClose}
      onOk={() => void submit().catch(() => undefined)}
      okText={t('twoFactor.enable')}
      cancelText={t('common.cancel')}
      confirmLoading={loading}
      okButtonProps={{ disabled: !setup }}
      destroyOnHidden
    >
      {!setup ? (
        <Spin />
      ) : (
        <>
          <Steps
            size="small"
            orientation="vertical"
            current={-1}
            items={[{ title: t('twoFactor.enrolStepScan') }, { title: t('twoFactor.enrolStepCode') }]}
          />
          <div style={{ display: 'flex', gap: 16, alignItems: 'center', margin: '12px 0' }}>
            <QRCode value={setup.otpauth_url} size={168} bordered={false} />
            <div style={{ minWidth: 0 }}>
              <Typography.Text type="secondary">{t('twoFactor.enrolManual')}</Typography.Text>
              <Typography.Paragraph copyable={{ text: setup.secret }} code data-testid="totp-secret" style={{ wordBreak: 'break-all' }}>
                {setup.secret}
              </Typography.Paragraph>
            </div>
          </div>
          <Form form={form} layout="vertical" requiredMark={false} onFinish={() => void submit()}>
            <Form.Item name="code" label={t('twoFactor.code')} rules={[secondFactorCodeRule(t)]}>
              <Input autoComplete="one-time-code" inputMode="numeric" maxLength={8} placeholder={t('twoFactor.totpPlaceholder')} />
            </Form.Item>
          </Form>
        </>
      )}
    </Modal>
  );
}
