import { Form } from 'antd';
import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { EditorDrawer } from '../../../components/EditorDrawer';
import { showError, showSuccess } from '../../../lib/feedback';
import { useCreateTokens } from '../api/create-tokens';
import { useToken } from '../api/get-token';
import { useUpdateToken } from '../api/update-token';
import { newTokenForm, tokenFormOf, tokenPayloadOf, type TokenFormValues } from '../hooks/token-form';
import { TokenFormFields } from './TokenFormFields';

/** Create (tokenId null) or edit a token. */
export function TokenEditorDrawer({ open, tokenId, onClose }: { open: boolean; tokenId: number | null; onClose: () => void }) {
  const { t } = useTranslation();
  const [form] = Form.useForm<TokenFormValues>();
  const token = useToken(open ? tokenId : null);
  const createTokens = useCreateTokens();
  const updateToken = useUpdateToken();
  const isCreate = tokenId === null;

  useEffect(() => {
    if (!open) return;
    form.setFieldsValue(isCreate ? newTokenForm : token.data ? tokenFormOf(token.data) : { ...newTokenForm, remain_quota: 0 });
  }, [open, isCreate, token.data, form]);

  const save = async () => {
    const result = tokenPayloadOf({ ...newTokenForm, ...form.getFieldsValue(true) } as TokenFormValues, isCreate);
    if ('problem' in result) {
      const { key, message } = result.problem;
      showError(key ? t(`tokens.msg.${key}`, { defaultValue: message }) : message);
      return;
    }
    try {
      if (isCreate) {
        await createTokens.mutateAsync(result.payload);
        showSuccess(t('tokens.msg.created'));
      } else {
        await updateToken.mutateAsync({ id: tokenId, ...result.payload });
        showSuccess(t('tokens.msg.updated'));
      }
      onClose();
    } catch {
      // shown by the http client
    }
  };
  const isSaving = createTokens.isPending || updateToken.isPending;

  return (
    <EditorDrawer
      title={isCreate ? t('tokens.createTitle') : t('tokens.editTitle')}
      open={open}
      onClose={onClose}
      onSubmit={() => void save()}
      isSaving={isSaving}
      isLoading={!isCreate && token.isLoading}
      size={520}
    >
      <Form form={form} layout="vertical" initialValues={newTokenForm}>
        <TokenFormFields form={form} isCreate={isCreate} />
      </Form>
    </EditorDrawer>
  );
}
