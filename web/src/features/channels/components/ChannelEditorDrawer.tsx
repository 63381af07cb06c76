import { channelPriorityMin, channelTypeNames, type ChannelType } from '@modelgate/shared';
import { Form } from 'antd';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { EditorDrawer } from '../../../components/EditorDrawer';
import { feedback, showError, showSuccess } from '../../../lib/feedback';
import { useCreateChannel } from '../api/create-channel';
import { useChannel } from '../api/get-channel';
import { useChannelTypes } from '../api/get-channel-types';
import { useUpdateChannel } from '../api/update-channel';
import {
  channelPayloadProblem,
  emptyChannelForm,
  endsWithV1,
  payloadOf,
  updatePayloadOf,
  formValuesOf,
  type ChannelFormValues,
} from '../hooks/channel-form';
import { ChannelFormFields } from './ChannelFormFields';
import { showUnpricedModelsNotice } from './unpriced-models-notice';

interface Props {
  open: boolean;
  /** null creates a channel. */
  channelId: number | null;
  onClose: () => void;
}

const fallbackType = (type: number): ChannelType => ({
  type,
  slug: '',
  displayName: channelTypeNames[type] ?? String(type),
  keyHint: '',
  defaultBaseURL: '',
  extraFields: [],
  defaultModels: [],
  endpoints: [],
  hasBalance: false,
  validatesKey: false,
  hasModelList: false,
});

/** Create or edit a channel in a side drawer. */
export function ChannelEditorDrawer({ open, channelId, onClose }: Props) {
  const { t } = useTranslation();
  const [form] = Form.useForm<ChannelFormValues>();
  const createChannel = useCreateChannel();
  const updateChannel = useUpdateChannel();
  const navigate = useNavigate();
  const types = useChannelTypes();
  const channel = useChannel(open ? channelId : null);
  const [isSaving, setSaving] = useState(false);
  const type = Form.useWatch('type', form) ?? emptyChannelForm.type;
  const typeList = [...(types.data ?? [])];
  if (!typeList.some((item) => item.type === type)) typeList.push(fallbackType(type));
  const meta = typeList.find((item) => item.type === type);

  useEffect(() => {
    if (!open) return;
    form.setFieldsValue(channelId === null ? emptyChannelForm : channel.data ? formValuesOf(channel.data) : emptyChannelForm);
  }, [open, channelId, channel.data, form]);

  const confirmV1 = (url: string) =>
    new Promise<boolean>((resolve) => {
      feedback.modal.confirm({
        title: t('channels.v1Title'),
        content: t('channels.v1Warning', { url }),
        okText: t('common.confirm'),
        cancelText: t('common.cancel'),
        onOk: () => resolve(true),
        onCancel: () => resolve(false),
      });
    });

  const save = async () => {
    const values = { ...emptyChannelForm, ...form.getFieldsValue(true) } as ChannelFormValues;
    const payload = channelId === null ? payloadOf(values) : updatePayloadOf(values, channelId);
    const problem = channelPayloadProblem(payload, channelId === null);
    if (problem) {
      showError(
        problem.key ? t(`channels.msg.${problem.key}`, { min: channelPriorityMin, defaultValue: problem.message }) : problem.message,
      );
      return;
    }
    if (endsWithV1(values.base_url ?? '') && !(await confirmV1(values.base_url))) return;
    setSaving(true);
    try {
      let saved;
      if (channelId === null) {
        saved = await createChannel.mutateAsync(payloadOf(values));
        showSuccess(t('channels.msg.created'));
      } else {
        saved = await updateChannel.mutateAsync(updatePayloadOf(values, channelId));
        showSuccess(t('channels.msg.updated'));
      }
      onClose();
      showUnpricedModelsNotice(saved?.unpriced_models ?? [], navigate);
    } catch {
      // the http client showed the server's message
    } finally {
      setSaving(false);
    }
  };

  const isLoading = channelId !== null && channel.isLoading;
  return (
    <EditorDrawer
      title={channelId === null ? t('channels.createTitle') : t('channels.editTitle', { name: channel.data?.name ?? '' })}
      open={open}
      onClose={onClose}
      onSubmit={() => void save()}
      isSaving={isSaving}
      isLoading={isLoading}
      size={560}
    >
      <Form form={form} layout="vertical" initialValues={emptyChannelForm}>
        <ChannelFormFields form={form} types={typeList} meta={meta} channelId={channelId} />
      </Form>
    </EditorDrawer>
  );
}
