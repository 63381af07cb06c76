import { LoadingOutlined, RobotOutlined, UserOutlined } from '@ant-design/icons';
import { Avatar, Empty, Flex, theme, Typography } from 'antd';
import { useEffect, useRef } from 'react';
import { useTranslation } from 'react-i18next';
import type { ChatMessage } from '../hooks/useChat';

/** The conversation: user on the right, assistant on the left; errors in red. */
export function ChatMessages({ messages }: { messages: ChatMessage[] }) {
  const { t } = useTranslation();
  const { token } = theme.useToken();
  const end = useRef<HTMLDivElement>(null);
  useEffect(() => {
    end.current?.scrollIntoView?.({ block: 'end' });
  }, [messages]);
  if (messages.length === 0) return <Empty style={{ margin: 'auto' }} description={t('playground.empty')} />;
  return (
    <Flex vertical gap={16} role="log" aria-label={t('playground.conversation')}>
      {messages.map((message) => {
        const isUser = message.role === 'user';
        const isError = message.status === 'error';
        return (
          <Flex key={message.id} gap={8} justify={isUser ? 'flex-end' : 'flex-start'} align="flex-start">
            {!isUser && <Avatar icon={<RobotOutlined />} style={{ background: token.colorPrimary, flex: 'none' }} />}
            <div
              data-role={message.role}
              data-status={message.status}
              style={{
                maxWidth: '75%',
                padding: '8px 12px',
                borderRadius: token.borderRadiusLG,
                whiteSpace: 'pre-wrap',
                wordBreak: 'break-word',
                background: isUser ? token.colorPrimary : isError ? token.colorErrorBg : token.colorFillSecondary,
                color: isUser ? token.colorTextLightSolid : isError ? token.colorError : token.colorText,
                border: isError ? `1px solid ${token.colorErrorBorder}` : undefined,
              }}
            >
              {message.status === 'loading' ? (
                <Typography.Text type="secondary">
                  <LoadingOutlined /> {t('playground.thinking')}
                </Typography.Text>
              ) : (
                message.content
              )}
            </div>
            {isUser && <Avatar icon={<UserOutlined />} style={{ flex: 'none' }} />}
          </Flex>
        );
      })}
      <div ref={end} />
    </Flex>
  );
}
