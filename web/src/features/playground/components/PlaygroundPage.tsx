import { ClearOutlined, SendOutlined, SettingOutlined } from '@ant-design/icons';
import { defaultGroup } from '@modelgate/shared';
import { Alert, Button, Card, Col, Flex, Grid, Input, Row, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useSearchParams } from 'react-router';
import i18n from '../../../lib/i18n';
import { useCurrentUser } from '../../../lib/user-store';
import { useChat, type ChatSettings } from '../hooks/useChat';
import { ChatMessages } from './ChatMessages';
import { PlaygroundSettings } from './PlaygroundSettings';

/** Playground defaults: model gpt-4o-mini, temperature 0 and max_tokens 0 (both: the upstream's default, not sent). */
export const defaultModel = 'gpt-4o-mini';
export const defaultTemperature = 0;

/** The chat playground: settings panel (toggled on mobile) and a streaming conversation. */
export function PlaygroundPage() {
  const { t } = useTranslation();
  const user = useCurrentUser();
  const screens = Grid.useBreakpoint();
  const isMobile = !screens.md;
  const [isPanelOpen, setPanelOpen] = useState(false);
  const isExpired = useSearchParams()[0].get('expired') === 'true';
  const [settings, setSettings] = useState<ChatSettings>(() => ({
    model: defaultModel,
    group: user?.group || defaultGroup,
    temperature: defaultTemperature,
    maxTokens: 0,
    systemPrompt: i18n.t('playground.defaultSystemPrompt'),
  }));
  const { messages, send, clear, isBusy } = useChat();
  const [draft, setDraft] = useState('');
  const submit = () => {
    const text = draft.trim();
    if (!text || isBusy) return;
    setDraft('');
    void send(text, settings);
  };
  const showPanel = !isMobile || isPanelOpen;

  return (
    <Row gutter={[16, 16]}>
      {isExpired && (
        <Col span={24}>
          <Alert type="warning" showIcon title={t('playground.expired')} action={<Link to="/login">{t('playground.signIn')}</Link>} />
        </Col>
      )}
      {isMobile && (
        <Col span={24}>
          <Button icon={<SettingOutlined />} onClick={() => setPanelOpen((open) => !open)} aria-expanded={isPanelOpen}>
            {t(isPanelOpen ? 'playground.hideSettings' : 'playground.showSettings')}
          </Button>
        </Col>
      )}
      {showPanel && (
        <Col xs={24} md={8} lg={7} xl={6}>
          <PlaygroundSettings settings={settings} onChange={setSettings} />
        </Col>
      )}
      <Col xs={24} md={16} lg={17} xl={18}>
        <Card
          size="small"
          title={<Typography.Text strong>{t('playground.title')}</Typography.Text>}
          extra={
            <Button icon={<ClearOutlined />} onClick={clear} size="small">
              {t('playground.clear')}
            </Button>
          }
          styles={{ body: { display: 'flex', flexDirection: 'column', gap: 12, height: 'calc(100vh - 220px)', minHeight: 420 } }}
        >
          <div style={{ flex: 1, overflowY: 'auto', display: 'flex', flexDirection: 'column', paddingRight: 4 }}>
            <ChatMessages messages={messages} />
          </div>
          <Flex gap={8} align="flex-end">
            <Input.TextArea
              aria-label={t('playground.input')}
              placeholder={t('playground.inputPlaceholder')}
              autoSize={{ minRows: 1, maxRows: 6 }}
              value={draft}
              onChange={(event) => setDraft(event.target.value)}
              onPressEnter={(event) => {
                if (!event.shiftKey) {
                  event.preventDefault();
                  submit();
                }
              }}
            />
            <Button type="primary" icon={<SendOutlined />} onClick={submit} loading={isBusy} disabled={!draft.trim()}>
              {t('playground.send')}
            </Button>
          </Flex>
        </Card>
      </Col>
    </Row>
  );
}
