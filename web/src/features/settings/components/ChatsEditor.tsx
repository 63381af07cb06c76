import { ArrowDownOutlined, ArrowUpOutlined, DeleteOutlined, PlusOutlined } from '@ant-design/icons';
import { chatLinkKind, chatRows, defaultChats, maxChatLinkLength, maxChatNameLength, maxChats } from '@modelgate/shared';
import { Button, Flex, Form, Input, Space, Typography } from 'antd';
import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { feedback, showError } from '../../../lib/feedback';
import { useOptionSave } from '../hooks/useOptionSave';

interface ChatRow {
  name: string;
  link: string;
}

/** The stored Chats value as rows; a value that does not parse gives none (the JSON tab shows it). */
function rowsOf(stored: string | undefined): ChatRow[] {
  try {
    return chatRows(JSON.parse(stored || '[]'));
  } catch {
    return [];
  }
}

/** Rows as the option stores them: one `{ name: link }` object per row, in order. */
export const chatsValue = (rows: ChatRow[]): string => JSON.stringify(rows.map((row) => ({ [row.name.trim()]: row.link.trim() })));

/**
 * The visual Chats editor: one row per chat app (name and link), reordered, added, removed or reset
 * to new-api's defaults, then saved as the Chats option. The rules match the server's (shared
 * chatsProblem); a link the console cannot open (no scheme) is allowed with a warning.
 */
export function ChatsEditor({ options }: { options: Record<string, string> }) {
  const { t } = useTranslation();
  const [form] = Form.useForm<{ chats: ChatRow[] }>();
  const { save, isSaving } = useOptionSave();
  const initial = useMemo(() => rowsOf(options.Chats), [options.Chats]);

  const nameRules = (index: number) => [
    { required: true, whitespace: true, message: t('settingsOps.chatNameRequired') },
    { max: maxChatNameLength, message: t('settingsOps.chatNameTooLong', { max: maxChatNameLength }) },
    {
      validator: (_rule: unknown, value: string) => {
        const rows = (form.getFieldValue('chats') ?? []) as ChatRow[];
        const isTaken = rows.some((row, other) => other !== index && row?.name?.trim() === value?.trim());
        return isTaken ? Promise.reject(new Error(t('settingsOps.chatNameDuplicate'))) : Promise.resolve();
      },
    },
  ];
  const linkRules = [
    { required: true, whitespace: true, message: t('settingsOps.chatLinkRequired') },
    { max: maxChatLinkLength, message: t('settingsOps.chatLinkTooLong', { max: maxChatLinkLength }) },
    {
      validator: (_rule: unknown, value: string) =>
        value && chatLinkKind(value) === 'blocked' ? Promise.reject(new Error(t('settingsOps.chatLinkBlocked'))) : Promise.resolve(),
    },
    {
      warningOnly: true,
      validator: (_rule: unknown, value: string) =>
        value && chatLinkKind(value) === 'unsupported'
          ? Promise.reject(new Error(t('settingsOps.chatLinkUnsupported')))
          : Promise.resolve(),
    },
  ];

  const submit = async () => {
    const { chats = [] } = await form.validateFields();
    if (chats.length > maxChats) return showError(t('settingsOps.chatTooMany', { max: maxChats }));
    const next = chatsValue(chats);
    await save(next === chatsValue(initial) ? {} : { Chats: next });
  };
  const restoreDefaults = () =>
    feedback.modal.confirm({
      title: t('settingsOps.chatRestoreDefaults'),
      content: t('settingsOps.chatRestoreConfirm'),
      okText: t('common.confirm'),
      cancelText: t('common.cancel'),
      onOk: () => form.setFieldsValue({ chats: chatRows(defaultChats) }),
    });

  return (
    <Form
      form={form}
      initialValues={{ chats: initial }}
      onFinish={() => void submit()}
      onFinishFailed={() => showError(t('settingsOps.checkInput'))}
    >
      <Typography.Paragraph type="secondary">{t('settingsOps.chatsHint')}</Typography.Paragraph>
      <Form.List name="chats">
        {(fields, { add, remove, move }) => (
          <Flex vertical gap={4}>
            {fields.map((field, index) => (
              <Flex key={field.key} gap={8} align="flex-start" wrap>
                <Form.Item
                  name={[field.name, 'name']}
                  rules={nameRules(index)}
                  dependencies={fields.map((other) => ['chats', other.name, 'name'])}
                  style={{ flex: '0 1 220px', marginBottom: 8 }}
                >
                  <Input aria-label={t('settingsOps.chatNameOf', { n: index + 1 })} placeholder={t('settingsOps.chatName')} />
                </Form.Item>
                <Form.Item name={[field.name, 'link']} rules={linkRules} style={{ flex: '1 1 360px', marginBottom: 8 }}>
                  <Input
                    aria-label={t('settingsOps.chatLinkOf', { n: index + 1 })}
                    placeholder="https://chat.example.com/?key={key}&url={address}"
                    style={{ fontFamily: 'monospace' }}
                  />
                </Form.Item>
                <Space size={0}>
                  <Button
                    type="text"
                    icon={<ArrowUpOutlined />}
                    aria-label={t('settingsOps.chatMoveUp', { n: index + 1 })}
                    disabled={index === 0}
                    onClick={() => move(index, index - 1)}
                  />
                  <Button
                    type="text"
                    icon={<ArrowDownOutlined />}
                    aria-label={t('settingsOps.chatMoveDown', { n: index + 1 })}
                    disabled={index === fields.length - 1}
                    onClick={() => move(index, index + 1)}
                  />
                  <Button
                    type="text"
                    danger
                    icon={<DeleteOutlined />}
                    aria-label={t('settingsOps.chatRemove', { n: index + 1 })}
                    onClick={() => remove(index)}
                  />
                </Space>
              </Flex>
            ))}
            {fields.length === 0 && <Typography.Text type="secondary">{t('settingsOps.chatsEmpty')}</Typography.Text>}
            <Flex gap={8} wrap style={{ marginTop: 8 }}>
              <Button icon={<PlusOutlined />} onClick={() => add({ name: '', link: '' })} disabled={fields.length >= maxChats}>
                {t('settingsOps.chatAdd')}
              </Button>
              <Button onClick={restoreDefaults}>{t('settingsOps.chatRestoreDefaults')}</Button>
              <Button type="primary" htmlType="submit" loading={isSaving}>
                {t('settings.save', { name: t('settingsOps.chatsPanel') })}
              </Button>
            </Flex>
          </Flex>
        )}
      </Form.List>
    </Form>
  );
}
