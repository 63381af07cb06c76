import { message as staticMessage, Modal as StaticModal } from 'antd';
import type { MessageInstance } from 'antd/es/message/interface';
import type { ModalStaticFunctions } from 'antd/es/modal/confirm';

/**
 * Toasts and dialogs usable outside React (the http client, the clipboard helper). The app shell
 * binds antd's context-aware instances here so they follow the current theme.
 */
let boundMessage: MessageInstance | null = null;
let boundModal: Omit<ModalStaticFunctions, 'warn'> | null = null;

export function bindFeedback(message: MessageInstance, modal: Omit<ModalStaticFunctions, 'warn'>) {
  boundMessage = message;
  boundModal = modal;
}

export const feedback = {
  get message(): MessageInstance {
    return boundMessage ?? staticMessage;
  },
  get modal(): Omit<ModalStaticFunctions, 'warn'> {
    return boundModal ?? StaticModal;
  },
};

export const showSuccess = (text: string) => void feedback.message.success(text);
export const showError = (text: string) => void feedback.message.error(text);
export const showInfo = (text: string) => void feedback.message.info(text);
export const showWarning = (text: string) => void feedback.message.warning(text);
