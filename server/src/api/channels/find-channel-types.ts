import { translate, type Language } from '../../lib/i18n/index.js';
import { listChannelTypes, type ChannelTypeInfo } from '../../relay/providers/registry.js';

/** GET /api/channel/types: the providers' form metadata, its names, hints and labels in the viewer's language. */
export function findChannelTypes(language: Language): ChannelTypeInfo[] {
  return listChannelTypes().map((info) => ({
    ...info,
    displayName: translate(info.displayName, language),
    keyHint: translate(info.keyHint, language),
    extraFields: info.extraFields.map((field) => ({
      ...field,
      label: translate(field.label, language),
      ...(field.placeholder === undefined ? {} : { placeholder: translate(field.placeholder, language) }),
    })),
  }));
}
