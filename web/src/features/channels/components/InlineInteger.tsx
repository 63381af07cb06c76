import { Input } from 'antd';
import { useState } from 'react';

interface InlineIntegerProps {
  value: number;
  label: string;
  /** Returns the value to save, or null after showing why the text is not accepted. */
  parse: (text: string) => number | null;
  onSave: (value: number) => Promise<unknown>;
}

/** A number edited in its table row; saved on blur or Enter when it changed. */
export function InlineInteger({ value, label, parse, onSave }: InlineIntegerProps) {
  const [text, setText] = useState<string | null>(null);
  const [isSaving, setSaving] = useState(false);
  const commit = async () => {
    if (text === null || text.trim() === String(value)) {
      setText(null);
      return;
    }
    const next = parse(text);
    if (next === null) return;
    setSaving(true);
    try {
      await onSave(next);
      setText(null);
    } catch {
      // the http client showed the message; keep the text for another try
    } finally {
      setSaving(false);
    }
  };
  return (
    <Input
      size="small"
      aria-label={label}
      style={{ width: 60 }}
      disabled={isSaving}
      value={text ?? String(value)}
      onChange={(event) => setText(event.target.value)}
      onBlur={() => void commit()}
      onPressEnter={() => void commit()}
    />
  );
}
