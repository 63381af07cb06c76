import { Layout, theme } from 'antd';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { sanitizeHtml } from '../../lib/rich-text';
import { readString, StorageKey } from '../../lib/storage-keys';

const pollTimes = 5;
const pollIntervalMs = 200;

/** The custom footer HTML (stored footer_html polled 5 × 200 ms), else a default credit line. */
export function SiteFooter({ version }: { version?: string }) {
  const { t } = useTranslation();
  const { token } = theme.useToken();
  const [footerHtml, setFooterHtml] = useState(() => readString(StorageKey.footerHtml) ?? '');

  useEffect(() => {
    let count = 0;
    const timer = window.setInterval(() => {
      count += 1;
      setFooterHtml(readString(StorageKey.footerHtml) ?? '');
      if (count >= pollTimes) window.clearInterval(timer);
    }, pollIntervalMs);
    return () => window.clearInterval(timer);
  }, []);

  return (
    <Layout.Footer className="mg-footer" style={{ textAlign: 'center', color: token.colorTextSecondary, padding: '20px 16px' }}>
      {footerHtml ? (
        <div dangerouslySetInnerHTML={{ __html: sanitizeHtml(footerHtml) }} />
      ) : (
        <span>{t('footer.credit', { version: version ?? '', year: new Date().getFullYear() })}</span>
      )}
    </Layout.Footer>
  );
}
