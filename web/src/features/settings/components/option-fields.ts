/** How one option is edited in a settings panel. */
export interface OptionField {
  key: string;
  kind: 'text' | 'url' | 'secret' | 'number' | 'switch' | 'textarea' | 'json' | 'tags' | 'select';
  labelKey: string;
  extraKey?: string;
  placeholder?: string;
  /** Ask before turning this switch off (password login). */
  confirmOffKey?: string;
  /** Message key shown when the JSON is invalid (validated on blur). */
  jsonErrorKey?: string;
  min?: number;
  max?: number;
  step?: number;
  /** Choices of a 'select' field (stored as the value itself). */
  choices?: { value: string; labelKey: string }[];
  /** Key of a switch in the same panel: this field is disabled while that switch is off. */
  enabledBy?: string;
  /** Extra shown as a warning (e.g. QuotaPerUnit). */
  isWarning?: boolean;
  span?: 8 | 12 | 24;
}

export type FormValue = string | number | boolean | string[] | null | undefined;

export function toFormValue(field: OptionField, stored: string | undefined): FormValue {
  const value = stored ?? '';
  if (field.kind === 'switch') return value === 'true';
  if (field.kind === 'number') return value === '' ? null : Number(value);
  if (field.kind === 'secret') return '';
  if (field.kind === 'tags')
    return value
      .split(',')
      .map((item) => item.trim())
      .filter(Boolean);
  return value;
}

export function toOptionValue(field: OptionField, value: FormValue): string {
  if (field.kind === 'switch') return value ? 'true' : 'false';
  if (field.kind === 'number') return value === null || value === undefined || value === '' ? '' : String(value);
  if (field.kind === 'tags')
    return (Array.isArray(value) ? value : [])
      .map((item) => item.trim())
      .filter(Boolean)
      .join(',');
  const text = typeof value === 'string' ? value : value == null ? '' : String(value);
  if (field.kind === 'url') return text.trim().replace(/\/+$/, '');
  if (field.kind === 'textarea' || field.kind === 'json') return text;
  return text.trim();
}

/** The changed options of a panel; secrets only when non-empty. */
export function changedOptions(
  fields: OptionField[],
  stored: Record<string, string>,
  values: Record<string, FormValue>,
): Record<string, string> {
  const changes: Record<string, string> = {};
  for (const field of fields) {
    const next = toOptionValue(field, values[field.key]);
    if (field.kind === 'secret') {
      if (next !== '') changes[field.key] = next;
      continue;
    }
    const before = stored[field.key] ?? '';
    const comparable = field.kind === 'switch' ? String(before === 'true') : before;
    if (next !== comparable) changes[field.key] = next;
  }
  return changes;
}
