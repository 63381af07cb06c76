/**
 * Server texts in the person's language (docs/architecture.md, "Languages"). Texts are written in
 * Chinese where they are made; the catalog gives each its English, applied where a text leaves the
 * server: the management envelope's message, the relay's error writers, and the data texts the
 * console shows (log details, group descriptions, provider form hints).
 */
export { languageOf, requestLanguage, type Language } from './language.js';
export { chineseText, translate } from './translate.js';
