import {
  channelMessages,
  channelPriorityMin,
  editChannelTagSchema,
  toNameList,
  type ChannelTagRow,
  type EditChannelTagPayload,
} from '@modelgate/shared';
import { Alert, Form, Input, Modal, Select } from 'antd';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { showError, showSuccess } from '../../../lib/feedback';
import { firstProblem } from '../../../lib/form-rules';
import { useEditChannelTag } from '../api/edit-channel-tag';
import { useAllModels } from '../api/get-channel-models';
import { useGroups } from '../../../lib/api/groups';
import { parsePriority, parseWeight } from '../hooks/number-rules';

interface TagFormValues {
  new_tag: string;
  models: string[];
  groups: string[];
  model_mapping: string;
  priority: string;
  weight: string;
}

const sameList = (a: string[], b: string[]) => a.length === b.length && a.every((item) => b.includes(item));

/** Edits every channel of a tag; only changed fields are sent; an empty new tag dissolves the tag. */
export function TagEditModal({ row, onClose }: { row: ChannelTagRow | null; onClose: () => void }) {
  const { t } = useTranslation();
  const [form] = Form.useForm<TagFormValues>();
  const editTag = useEditChannelTag();
  const models = useAllModels();
  const groups = useGroups();
  const [isSaving, setSaving] = useState(false);
  const initial: TagFormValues | null = row && {
    new_tag: row.tag,
    models: toNameList(row.models),
    groups: toNameList(row.group),
    model_mapping: '',
    priority: String(row.priority),
    weight: String(row.weight),
  };
  useEffect(() => {
    if (initial) form.setFieldsValue(initial);
  }, [row]); // eslint-disable-line react-hooks/exhaustive-deps

  const save = async () => {
    if (!row || !initial) return;
    const values = { ...initial, ...form.getFieldsValue() };
    const payload: EditChannelTagPayload = { tag: row.tag };
    if ((values.new_tag ?? '').trim() !== row.tag) payload.new_tag = (values.new_tag ?? '').trim();
    if (!sameList(values.models ?? [], initial.models)) payload.models = values.models;
    if (!sameList(values.groups ?? [], initial.groups)) payload.groups = values.groups;
    if ((values.model_mapping ?? '').trim() !== '') payload.model_mapping = values.model_mapping.trim();
    if (values.priority.trim() !== initial.priority) {
      const priority = parsePriority(values.priority);
      if (priority === null) return;
      payload.priority = priority;
    }
    if (values.weight.trim() !== initial.weight) {
      const weight = parseWeight(values.weight);
      if (weight === null) return;
      payload.weight = weight;
    }
    const problem = firstProblem(editChannelTagSchema, payload, channelMessages);
    if (problem) {
      showError(
        problem.key ? t(`channels.msg.${problem.key}`, { min: channelPriorityMin, defaultValue: problem.message }) : problem.message,
      );
      return;
    }
    setSaving(true);
    try {
      await editTag.mutateAsync(payload);
      showSuccess(t('channels.msg.saved'));
      onClose();
    } catch {
      // shown by the http client
    } finally {
      setSaving(false);
    }
  };

  const modelOptions = [...new Set([...(models.data ?? []).map((model) => model.id), ...(initial?.models ?? [])])].map((model) => ({
    value: model,
    label: model,
  }));
  return (
    <Modal
      title={t('channels.tagEditTitle', { tag: row?.tag ?? '' })}
      open={row !== null}
      onCancel={onClose}
      onOk={() => void save()}
      okText={t('common.save')}
      cancelText={t('common.cancel')}
      confirmLoading={isSaving}
      destroyOnHidden
      width={600}
    >
      <Alert type="info" showIcon title={t('channels.tagEditHint')} style={{ marginBottom: 16 }} />
      <Form form={form} layout="vertical">
        <Form.Item name="new_tag" label={t('channels.field.newTag')} extra={t('channels.field.newTagHelp')}>
          <Input aria-label={t('channels.field.newTag')} />
        </Form.Item>
        <Form.Item name="models" label={t('channels.field.models')}>
          <Select mode="tags" aria-label={t('channels.field.models')} options={modelOptions} maxTagCount={20} />
        </Form.Item>
        <Form.Item name="groups" label={t('channels.field.groups')}>
          <Select
            mode="multiple"
            aria-label={t('channels.field.groups')}
            options={(groups.data ?? []).map((group) => ({ value: group, label: group }))}
          />
        </Form.Item>
        <Form.Item name="model_mapping" label={t('channels.field.modelMapping')} extra={t('channels.field.tagMappingHelp')}>
          <Input.TextArea aria-label={t('channels.field.modelMapping')} autoSize={{ minRows: 2, maxRows: 6 }} />
        </Form.Item>
        <Form.Item name="priority" label={t('channels.field.priority')}>
          <Input aria-label={t('channels.field.priority')} />
        </Form.Item>
        <Form.Item name="weight" label={t('channels.field.weight')}>
          <Input aria-label={t('channels.field.weight')} />
        </Form.Item>
      </Form>
    </Modal>
  );
}
