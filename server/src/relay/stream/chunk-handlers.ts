import type { Usage } from '../billing/quota.js';
import type { InboundFormat } from '../formats/types.js';
import { RelayError, UpstreamError, publicErrorOf } from '../errors.js';
import { claudeErrorBody } from '../formats/anthropic/response.js';
import { geminiErrorBody } from '../formats/gemini/errors.js';
import type { ChunkTransform, ConvertedEvents, NativeWire, StreamEvent, WireFormat } from '../providers/types.js';
import type { EventHandler, EventStep } from './event-codec.js';
import type { Json } from '@modelgate/shared';

/** Where OpenAI chunks go: OpenAI SSE, an inbound format's encoder, or an aggregate. */
export interface ChunkSink {
  onChunk(chunk: Json): string;
  close(usage: Usage): string;
  /** The closing frames when the stream broke after the first byte (see EventHandler.fail). */
  fail?(error: unknown, usage: Usage): string;
  /** Set once the answer is complete before the upstream ended, and the upstream is no longer read (a sensitive word cut it: sensitive/completion.ts). */
  readonly isAnswered?: boolean;
  /** Set once the answer is complete while the upstream is read on for its usage (a stop sequence matched: stop-scanner.ts). */
  readonly isComplete?: boolean;
}

/**
 * Whether chunk choices carry any answer: an error chunk with choices (OpenRouter's mid-stream error
 * has `delta.content: ""` and `finish_reason: "error"`) carries none.
 */
export function hasContent(choices: unknown): boolean {
  if (!Array.isArray(choices)) return false;
  return choices.some(
    (choice: { delta?: { content?: unknown; tool_calls?: unknown }; finish_reason?: unknown }) =>
      (typeof choice?.delta?.content === 'string' && choice.delta.content.length > 0) ||
      choice?.delta?.tool_calls !== undefined ||
      (choice?.finish_reason != null && choice.finish_reason !== 'error'),
  );
}

/** An error chunk (`{"error":{…}}` without answer content) as an UpstreamError, else null. */
export function errorOfChunk(chunk: Record<string, unknown>, data: string): UpstreamError | null {
  const error = chunk.error;
  if (!error || typeof error !== 'object' || hasContent(chunk.choices)) return null;
  const { message, code } = error as { message?: unknown; code?: unknown };
  const status = typeof code === 'number' && code >= 400 && code <= 599 ? code : 0;
  return new UpstreamError(
    status,
    typeof message === 'string' && message ? message : '上游流返回错误',
    typeof code === 'string' ? code : null,
    data.trim(),
  );
}

/** Status, message and code of a stream failure as the client sees it (upstream failures classified and redacted, errors.ts). */
export function failureOf(error: unknown): { status: number; message: string; code: string } {
  const relayError = error instanceof UpstreamError ? publicErrorOf(error) : error;
  if (relayError instanceof RelayError) return { status: relayError.status, message: relayError.message, code: relayError.code };
  // A broken upstream connection: its text (addresses, socket errors) stays in the gateway.
  return { status: 502, message: '上游流中断', code: 'upstream_error' };
}

const errorBodies: Record<Exclude<WireFormat, 'openai'>, (status: number, message: string, code: string) => unknown> = {
  claude: claudeErrorBody,
  gemini: geminiErrorBody,
  responses: (_status, message, code) => ({ type: 'error', code, message, param: null }),
};

/** One SSE error frame in a wire format: Claude/Responses `event: error`, Gemini `{error}`, OpenAI `{error}` data. */
export function streamErrorFrame(wire: WireFormat, error: unknown): string {
  const { status, message, code } = failureOf(error);
  if (wire === 'openai') return `data: ${JSON.stringify(new RelayError(status, code, message).toBody())}\n\n`;
  const body = JSON.stringify(errorBodies[wire](status, message, code));
  return wire === 'gemini' ? `data: ${body}\n\n` : `event: error\ndata: ${body}\n\n`;
}

/** OpenAI SSE to the client; the usage-only chunk (`choices: []`) when the client asked, then [DONE]. */
export function openAiChunkSink(model: string, clientWantsUsage: boolean, object = 'chat.completion.chunk'): ChunkSink {
  let id = '';
  return {
    onChunk(chunk) {
      if (typeof chunk.id === 'string') id = chunk.id;
      return `data: ${JSON.stringify(chunk)}\n\n`;
    },
    close(usage) {
      let out = '';
      if (clientWantsUsage) {
        const usageChunk = {
          id,
          object,
          created: Math.floor(Date.now() / 1000),
          model,
          choices: [],
          usage: {
            prompt_tokens: usage.promptTokens,
            completion_tokens: usage.completionTokens,
            total_tokens: usage.promptTokens + usage.completionTokens,
            prompt_tokens_details: { cached_tokens: usage.cachedTokens },
          },
        };
        out += `data: ${JSON.stringify(usageChunk)}\n\n`;
      }
      return `${out}data: [DONE]\n\n`;
    },
    fail(error, usage) {
      return streamErrorFrame('openai', error) + this.close(usage);
    },
  };
}

/** OpenAI chunks re-encoded in an inbound format (Claude, Gemini, Responses SSE). */
export function formatChunkSink(format: InboundFormat, model: string, promptTokens?: () => number): ChunkSink {
  const encoder = format.createStreamEncoder(model, promptTokens);
  return {
    onChunk: (chunk) => encoder.onChunk(chunk),
    close: (usage) => encoder.finish(usage),
    fail: (error) => streamErrorFrame(format.wire === 'responses' ? 'responses' : format.wire, error),
  };
}

interface ChoiceAggregate {
  content: string;
  reasoning: string;
  finishReason: unknown;
  stopReason: unknown;
  calls: Map<number, { id: unknown; name: string; args: string }>;
}

/**
 * Collects chunks into one `chat.completion` (upstreams that only stream, for non-stream clients),
 * a choice per chunk `index` (a fan-out's calls: jobs/fan-out.ts), in index order.
 */
export function createChunkAggregate(model: string) {
  let id = '';
  const choices = new Map<number, ChoiceAggregate>();
  const choiceAt = (index: number): ChoiceAggregate => {
    let choice = choices.get(index);
    if (!choice) choices.set(index, (choice = { content: '', reasoning: '', finishReason: null, stopReason: null, calls: new Map() }));
    return choice;
  };
  const sink: ChunkSink = {
    onChunk(chunk) {
      if (typeof chunk.id === 'string') id = chunk.id;
      for (const choice of (Array.isArray(chunk.choices) ? chunk.choices : []) as Json[]) {
        const state = choiceAt(typeof choice.index === 'number' && Number.isInteger(choice.index) && choice.index >= 0 ? choice.index : 0);
        const delta = (choice.delta ?? {}) as Json;
        if (typeof delta.content === 'string') state.content += delta.content;
        if (typeof delta.reasoning_content === 'string') state.reasoning += delta.reasoning_content;
        for (const call of (Array.isArray(delta.tool_calls) ? delta.tool_calls : []) as Json[]) {
          const index = typeof call.index === 'number' ? call.index : state.calls.size;
          const fn = (call.function ?? {}) as Json;
          const entry = state.calls.get(index) ?? { id: call.id, name: '', args: '' };
          if (typeof fn.name === 'string') entry.name += fn.name;
          if (typeof fn.arguments === 'string') entry.args += fn.arguments;
          state.calls.set(index, entry);
        }
        if (choice.finish_reason) state.finishReason = choice.finish_reason;
        if (typeof choice.stop_reason === 'string') state.stopReason = choice.stop_reason;
      }
      return '';
    },
    close: () => '',
  };
  const choiceOf = (index: number, state: ChoiceAggregate): Json => {
    const message: Json = { role: 'assistant', content: state.content };
    if (state.reasoning) message.reasoning_content = state.reasoning;
    if (state.calls.size > 0) {
      message.tool_calls = [...state.calls.entries()]
        .sort(([a], [b]) => a - b)
        .map(([, call]) => ({ id: call.id, type: 'function', function: { name: call.name, arguments: call.args } }));
    }
    return {
      index,
      message,
      finish_reason: state.finishReason ?? 'stop',
      ...(state.stopReason !== null ? { stop_reason: state.stopReason } : {}),
    };
  };
  const completion = (usage: Usage): Json => {
    if (choices.size === 0) choiceAt(0);
    return {
      id: id || `chatcmpl-${Date.now()}`,
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model,
      choices: [...choices.entries()].sort(([a], [b]) => a - b).map(([index, state]) => choiceOf(index, state)),
      usage: {
        prompt_tokens: usage.promptTokens,
        completion_tokens: usage.completionTokens,
        total_tokens: usage.promptTokens + usage.completionTokens,
      },
    };
  };
  return { sink, completion };
}

const writeChunks = (sink: ChunkSink, events: ConvertedEvents): EventStep => {
  let output = '';
  for (const chunk of events.chunks) output += sink.onChunk(chunk);
  return { output, text: events.text, usage: events.usage, isLast: sink.isAnswered === true, isComplete: sink.isComplete === true };
};

/** A converting provider's stream transform (Claude, Gemini, Ollama, …) feeding a sink. */
export function converterHandler(
  transform: { onEvent(event: StreamEvent): ConvertedEvents; finish(): ConvertedEvents },
  sink: ChunkSink,
): EventHandler {
  return {
    onEvent: (event) => writeChunks(sink, transform.onEvent(event)),
    end: () => writeChunks(sink, transform.finish()),
    close: (usage) => sink.close(usage),
    fail: (error, usage) => (sink.fail ? sink.fail(error, usage) : sink.close(usage)),
  };
}

/** An OpenAI-wire upstream stream feeding a non-OpenAI sink (inbound formats on OpenAI channels). */
export function openAiWireHandler(transform: ChunkTransform, sink: ChunkSink): EventHandler {
  return {
    onEvent(event) {
      if (event.data === '[DONE]') return { output: '', text: '', usage: null };
      let chunk: Json;
      try {
        chunk = JSON.parse(event.data) as Json;
      } catch {
        return { output: '', text: '', usage: null };
      }
      const failure = chunk.error !== undefined ? errorOfChunk(chunk, event.data) : null;
      if (failure) throw failure;
      const verdict = transform.onChunk(chunk);
      const hasChoices = Array.isArray(chunk.choices) && chunk.choices.length > 0;
      return {
        output: hasChoices ? sink.onChunk(chunk) : '',
        text: verdict.text,
        usage: verdict.usage,
        isLast: sink.isAnswered === true,
        isComplete: sink.isComplete === true,
      };
    },
    end: () => ({ output: '', text: '', usage: null }),
    close: (usage) => sink.close(usage),
    fail: (error, usage) => (sink.fail ? sink.fail(error, usage) : sink.close(usage)),
  };
}

/** The SSE event name of a native event: its own name, else the JSON `type` (Bedrock `chunk` frames). */
function eventNameOf(event: StreamEvent, format: NativeWire['format']): string | null {
  if (format === 'gemini') return null;
  if (event.event && event.event !== 'chunk' && event.event !== 'message') return event.event;
  const match = /"type"\s*:\s*"([^"]+)"/.exec(event.data);
  return match ? match[1]! : event.event;
}

/** Native pass-through: events re-framed as SSE unchanged, usage read by the native reader. */
export function nativeHandler(native: NativeWire): EventHandler {
  const reader = native.createUsageReader();
  return {
    onEvent(event) {
      const { usage, text } = reader.onEvent(event);
      const name = eventNameOf(event, native.format);
      return { output: `${name ? `event: ${name}\n` : ''}data: ${event.data}\n\n`, text, usage };
    },
    end: () => ({ output: '', text: '', usage: null }),
    close: () => '',
    fail: (error) => streamErrorFrame(native.format, error),
  };
}
