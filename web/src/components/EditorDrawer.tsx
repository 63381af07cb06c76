import { Button, Drawer, Space, Spin } from 'antd';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';

interface EditorDrawerProps {
  title: ReactNode;
  open: boolean;
  onClose: () => void;
  onSubmit: () => void;
  isSaving: boolean;
  /** Spins over the form while the edited record loads. */
  isLoading?: boolean;
  size: number;
  children: ReactNode;
}

/** The create/edit side drawer of the list screens: the form, with cancel and submit in the footer. */
export function EditorDrawer({ title, open, onClose, onSubmit, isSaving, isLoading = false, size, children }: EditorDrawerProps) {
  const { t } = useTranslation();
  return (
    <Drawer
      title={title}
      open={open}
      onClose={onClose}
      size={size}
      destroyOnHidden
      footer={
        <Space style={{ float: 'right' }}>
          <Button onClick={onClose}>{t('common.cancel')}</Button>
          <Button type="primary" loading={isSaving} onClick={onSubmit}>
            {t('common.submit')}
          </Button>
        </Space>
      }
    >
      <Spin spinning={isLoading}>{children}</Spin>
    </Drawer>
  );
}
