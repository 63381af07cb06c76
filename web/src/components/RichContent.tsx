import { useMemo } from 'react';
import { toSafeHtml } from '../lib/rich-text';

/** Configured Markdown or HTML, sanitised by DOMPurify; scripts never run. */
export function RichContent({ source }: { source: string }) {
  const html = useMemo(() => toSafeHtml(source), [source]);
  return <div className="mg-rich-content" dangerouslySetInnerHTML={{ __html: html }} />;
}
