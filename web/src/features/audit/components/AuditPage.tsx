import { DownloadOutlined, SafetyCertificateOutlined } from '@ant-design/icons';
import { Alert, Button, Card, Flex, Space, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { DataTable } from '../../../components/DataTable';
import { exportAudit } from '../api/export-audit';
import { fetchAuditPage, type AuditEntry } from '../api/get-audit-page';
import { auditKeys, type AuditFilters } from '../api/keys';
import { verifyAudit, type AuditVerdict } from '../api/verify-audit';
import { AuditFilterBar } from './AuditFilterBar';
import { useAuditColumns } from './useAuditColumns';

const noFilters: AuditFilters = { username: '', entity: '', action: '', start_timestamp: 0, end_timestamp: 0 };

/** Saves a downloaded file under `name` (a temporary link, clicked once). */
function saveFile(blob: Blob, name: string) {
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  link.click();
  // Revoked once the browser has taken the file (at once, Chromium may cancel the download).
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

/** The audit trail (root only): filters, the entries, exports with the same filters, the chain check. */
export function AuditPage() {
  const { t } = useTranslation();
  const columns = useAuditColumns();
  const [filters, setFilters] = useState<AuditFilters>(noFilters);
  const [verdict, setVerdict] = useState<AuditVerdict | null>(null);
  const download = async (format: 'csv' | 'jsonl') => {
    try {
      saveFile(await exportAudit(filters, format), `audit.${format}`);
    } catch {
      // shown by the http client
    }
  };
  const verify = async () => {
    try {
      setVerdict(await verifyAudit());
    } catch {
      // shown by the http client
    }
  };
  return (
    <Card>
      <Flex vertical gap={12}>
        <Typography.Title level={4} style={{ margin: 0 }}>
          {t('audit.title')}
        </Typography.Title>
        {verdict && (
          <Alert
            type={verdict.ok ? 'success' : 'error'}
            showIcon
            message={
              verdict.ok
                ? t('audit.verify.ok', { count: verdict.checked })
                : t('audit.verify.broken', { id: verdict.brokenId ?? '-', reason: t(`audit.verify.reason.${verdict.reason}`) })
            }
          />
        )}
        <DataTable<AuditEntry>
          tableId="audit"
          size="small"
          queryKey={auditKeys.list(filters)}
          fetchPage={(page, pageSize) => fetchAuditPage(filters, page, pageSize)}
          columns={columns}
          rowKey="id"
          toolbar={
            <Space wrap>
              <AuditFilterBar onSearch={setFilters} />
              <Button icon={<DownloadOutlined />} onClick={() => void download('csv')}>
                {t('audit.exportCsv')}
              </Button>
              <Button icon={<DownloadOutlined />} onClick={() => void download('jsonl')}>
                {t('audit.exportJsonl')}
              </Button>
              <Button icon={<SafetyCertificateOutlined />} onClick={() => void verify()}>
                {t('audit.verify.button')}
              </Button>
            </Space>
          }
        />
      </Flex>
    </Card>
  );
}
