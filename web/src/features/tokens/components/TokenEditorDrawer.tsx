import { useQueryClient } from '@tanstack/react-query';
import { Form } from 'antd';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { EditorDrawer } from '../../../components/EditorDrawer';
import { showError, showSuccess } from '../../../lib/feedback';
import { createToken, tokensQueryKey, updateToken, useToken } from '../api/tokens';
import { newTokenForm, tokenFormOf, tokenPayloadOf, type TokenFormValues } from '../hooks/token-form';
import { TokenFormFields } from './TokenFormFields';

/** Create (tokenId null) or edit a token. */
export function TokenEditorDrawer({ open, tokenId, onClose }: { open: boolean; tokenId: number | null; onClose: () => void }) {
  const { t } = useTranslation();
  const [form] = Form.useForm<TokenFormValues>();
  const queryClient = useQueryClient();
  const token = useToken(open ? tokenId : null);
  const [isSaving, setSaving] = useState(false);
  const isCreate = tokenId === null;

  useEffect(() => {
    if (!open) return;
    form.setFieldsValue(isCreate ? newTokenForm : token.data ? tokenFormOf(token.data) : { ...newTokenForm, remain_quota: 0 });
  }, [open, isCreate, token.data, form]);

  const save = async () => {
    const result = tokenPayloadOf({ ...newTokenForm, ...form.getFieldsValue(true) } as TokenFormValues, isCreate);
    if ('problem' in result) {
      showError(t(`tokens.msg.${result.problem}`));
      return;
    }
    setSaving(true);
    try {
      if (isCreate) {
        await createToken(result.payload);
        showSuccess(t('tokens.msg.created'));
      } else {
        await updateToken({ id: tokenId, ...result.payload });
        showSuccess(t('tokens.msg.updated'));
      }
      await queryClient.invalidateQueries({ queryKey: tokensQueryKey });
      onClose();
    } catch {
      // shown by the http client
    } finally {
      setSaving(false);
    }
  };

  return (
    <EditorDrawer title={isCreate ? t('tokens.createTitle') : t('tokens.editTitle')} open={open} onClose={onClose} onSubmit={() => void save()} isSaving={isSaving} isLoading={!isCreate && token.isLoading} size={520}>
      <Form form={form} layout="vertical" initialValues={newTokenForm}>
        <TokenFormFields form={form} isCreate={isCreate} />
      </Form>
    </EditorDrawer>
  );
}
