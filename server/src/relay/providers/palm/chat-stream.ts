import type { ConvertedEvents, StreamEvent } from '../types.js';
import { completionId } from '../gemini/chat.js';
import { throwIfStreamError } from '../gemini/errors.js';
import { readPalmAnswer } from './chat.js';

/**
 * PaLM cannot stream. The pipeline feeds the one JSON answer as a single synthetic event (see
 * `ChatConverter.isStreamingUnsupported`); it becomes one content chunk and one finish chunk.
 */
export function createPalmStreamTransform(model: string) {
  const id = completionId(undefined);
  const created = Math.floor(Date.now() / 1000);
  let isFinished = false;
  const chunkOf = (delta: Record<string, unknown>, finishReason: string | null) => ({
    id,
    object: 'chat.completion.chunk',
    created,
    model,
    choices: [{ index: 0, delta, finish_reason: finishReason }],
  });

  return {
    onEvent(event: StreamEvent): ConvertedEvents {
      if (isFinished || event.data.trim() === '') return { chunks: [], text: '', usage: null };
      const json = JSON.parse(event.data) as Record<string, unknown>;
      throwIfStreamError(json);
      const { text, finishReason } = readPalmAnswer(json);
      isFinished = true;
      return { chunks: [chunkOf({ role: 'assistant', content: text }, null), chunkOf({}, finishReason)], text, usage: null };
    },
    finish(): ConvertedEvents {
      if (isFinished) return { chunks: [], text: '', usage: null };
      isFinished = true;
      return { chunks: [chunkOf({ role: 'assistant', content: '' }, 'stop')], text: '', usage: null };
    },
  };
}
