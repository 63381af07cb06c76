import { Button, Form, Input, type FormInstance } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { isRoot, useCurrentUser } from '../../../lib/user-store';
import { revealChannelKey } from '../api/reveal-channel-key';
import type { ChannelFormValues } from '../hooks/channel-form';

interface Props {
  form: FormInstance<ChannelFormValues>;
  channelId: number | null;
  keyHint: string | undefined;
}

/**
 * The key field. Editing starts empty (left empty, the stored key is kept); the root alone may
 * reveal the stored key, which the server answers only on that explicit request. An admin is told
 * that changing the type or base URL needs a new key (the server keeps the stored one for the root only).
 */
export function ChannelKeyField({ form, channelId, keyHint }: Props) {
  const { t } = useTranslation();
  const user = useCurrentUser();
  const [isRevealing, setRevealing] = useState(false);
  const isCreate = channelId === null;
  const canReveal = !isCreate && isRoot(user);
  const reveal = async () => {
    if (channelId === null) return;
    setRevealing(true);
    try {
      form.setFieldValue('key', (await revealChannelKey(channelId)).key);
    } catch {
      // the http client showed the server's message
    } finally {
      setRevealing(false);
    }
  };
  return (
    <Form.Item
      label={t('channels.field.key')}
      required={isCreate}
      extra={
        isCreate || isRoot(user) ? (
          keyHint
        ) : (
          <>
            {keyHint && <div>{keyHint}</div>}
            <div>{t('channels.field.keyNeededToMove')}</div>
          </>
        )
      }
    >
      <Form.Item name="key" noStyle>
        <Input.TextArea
          aria-label={t('channels.field.key')}
          autoSize={{ minRows: 1, maxRows: 6 }}
          placeholder={isCreate ? keyHint : t('channels.field.keyKeep')}
        />
      </Form.Item>
      {canReveal && (
        <Button size="small" type="link" style={{ paddingInline: 0 }} loading={isRevealing} onClick={() => void reveal()}>
          {t('channels.field.keyReveal')}
        </Button>
      )}
    </Form.Item>
  );
}
