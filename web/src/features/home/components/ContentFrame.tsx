import { RichContent } from '../../../components/RichContent';
import { isHttpUrl } from '../../../lib/rich-text';

/** A configured page: a URL is shown in a sandboxed frame, Markdown/HTML is sanitised. */
export function ContentFrame({ source }: { source: string }) {
  if (isHttpUrl(source) && !/\s/.test(source.trim())) {
    return (
      <iframe
        src={source.trim()}
        title="content"
        sandbox="allow-same-origin allow-popups"
        style={{ width: '100%', height: 'calc(100vh - 160px)', border: 'none' }}
      />
    );
  }
  return <RichContent source={source} />;
}
