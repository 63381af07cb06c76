import { channelPriorityMin, toInteger } from '@modelgate/shared';
import i18n from '../../../lib/i18n';
import { showError } from '../../../lib/feedback';

/** Priority: an integer, at least -999 ('优先级必须是整数！'). Null after showing the message. */
export function parsePriority(text: string): number | null {
  const value = toInteger(text);
  if (value === null) {
    showError(i18n.t('channels.msg.priorityInvalid'));
    return null;
  }
  if (value < channelPriorityMin) {
    showError(i18n.t('channels.msg.priorityTooLow', { min: channelPriorityMin }));
    return null;
  }
  return value;
}

/** Weight: a non-negative integer ('权重必须是非负整数！'); a negative integer is clamped to 0. */
export function parseWeight(text: string): number | null {
  const value = toInteger(text);
  if (value === null) {
    showError(i18n.t('channels.msg.weightInvalid'));
    return null;
  }
  return Math.max(0, value);
}
