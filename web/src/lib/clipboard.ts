import i18n from './i18n';
import { feedback, showSuccess } from './feedback';

async function writeText(text: string): Promise<boolean> {
  try {
    if (navigator.clipboard?.writeText) {
      await navigator.clipboard.writeText(text);
      return true;
    }
  } catch {
    // fall through to the legacy path
  }
  try {
    const area = document.createElement('textarea');
    area.value = text;
    area.setAttribute('readonly', '');
    area.style.position = 'fixed';
    area.style.opacity = '0';
    document.body.appendChild(area);
    area.select();
    const copied = document.execCommand('copy');
    document.body.removeChild(area);
    return copied;
  } catch {
    return false;
  }
}

/** Copies text; on success shows 'Copied: {text}' unless a message is given, on failure a dialog with the text. */
export async function copyText(text: string, successMessage?: string): Promise<boolean> {
  const copied = await writeText(text);
  if (copied) {
    showSuccess(successMessage ?? i18n.t('clipboard.copied', { text }));
  } else {
    feedback.modal.info({
      title: i18n.t('clipboard.failedTitle'),
      content: text,
    });
  }
  return copied;
}
