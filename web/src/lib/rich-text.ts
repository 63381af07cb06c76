import DOMPurify from 'dompurify';
import { marked } from 'marked';

/** Configured Markdown or HTML, rendered and sanitised so no script can run. */
export function toSafeHtml(source: string): string {
  const trimmed = source.trim();
  const looksLikeHtml = /^<[a-z!]/i.test(trimmed);
  const html = looksLikeHtml ? trimmed : (marked.parse(trimmed, { async: false }) as string);
  return DOMPurify.sanitize(html, { FORBID_TAGS: ['script', 'style', 'iframe'], FORBID_ATTR: ['style'] });
}

export function sanitizeHtml(html: string): string {
  return DOMPurify.sanitize(html, { FORBID_TAGS: ['script', 'style', 'iframe'] });
}

export const isHttpUrl = (value: string): boolean => /^https?:\/\//i.test(value.trim());
