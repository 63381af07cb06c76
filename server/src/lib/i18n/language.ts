/**
 * The language a server text is answered in. Chinese is the language the texts are written in
 * (the spec's messages, verbatim); English is everyone else's.
 */
export type Language = 'zh' | 'en';

const chineseTag = /^zh(?:[-_]|$)/i;

/**
 * The caller's language from its Accept-Language header: the range with the highest q-value (the
 * first of equals) decides; `zh`, `zh-CN`, `zh-Hant`… are Chinese, anything else (`*` included) and
 * no header are English. The console sends `en` or `zh` on every call; SDKs send none.
 */
export function languageOf(acceptLanguage: string | string[] | undefined): Language {
  const header = Array.isArray(acceptLanguage) ? acceptLanguage.join(',') : acceptLanguage;
  if (!header) return 'en';
  let best: Language = 'en';
  let bestQ = 0;
  // A header is short; one longer than any browser sends is read no further than its first 512 characters.
  for (const range of header.slice(0, 512).split(',')) {
    const [tag = '', ...params] = range.split(';');
    let q = 1;
    for (const param of params) {
      const [name, value] = param.split('=');
      if (name?.trim().toLowerCase() === 'q')
        q = value !== undefined && /^\s*(0(\.\d{0,3})?|1(\.0{0,3})?)\s*$/.test(value) ? Number(value) : 0;
    }
    if (q > bestQ) {
      bestQ = q;
      best = chineseTag.test(tag.trim()) ? 'zh' : 'en';
    }
  }
  return best;
}

/** The language of a request: its Accept-Language header (see languageOf). */
export const requestLanguage = (request: { headers: { 'accept-language'?: string | string[] } }): Language =>
  languageOf(request.headers['accept-language']);
