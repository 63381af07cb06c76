import { countChatPromptTokens, messagesText } from '../billing/token-count.js';
import { relayErrors } from '../errors.js';
import type { InboundFormat } from '../formats/types.js';
import type { RelayJob } from '../pipeline/relay-job.js';
import { planChat } from './chat-plan.js';
import { stopsForUpstream } from './stop-sequences.js';
import { streamRules } from './chat.js';
import { capOutputTokens, estimateChatPromptTokens, positiveInt, type JsonBody } from './json-body.js';

/** Fields of a converted Claude request that OpenAI upstreams reject. */
function stripClaudeOnly(body: JsonBody): void {
  delete body.top_k;
  if (!Array.isArray(body.messages)) return;
  body.messages = (body.messages as JsonBody[]).map((message) => {
    if (!message || typeof message !== 'object' || !('reasoning_signature' in message)) return message;
    const { reasoning_signature: _signature, ...rest } = message;
    return rest;
  });
}

/**
 * The most characters of stop sequences the gateway searches an answer for: the search's time does
 * not grow with them (lib/word-matcher.ts), but its memory does, and a body may hold 32 MiB.
 */
export const maxStopSequenceChars = 65_536;

/** The request's stop sequences (non-empty strings), or null when it has none. */
function stopSequencesOf(stop: unknown): string[] | null {
  const list = (typeof stop === 'string' ? [stop] : Array.isArray(stop) ? stop : []).filter(
    (item): item is string => typeof item === 'string' && item !== '',
  );
  let chars = 0;
  for (const item of list) chars += item.length;
  if (chars > maxStopSequenceChars)
    throw relayErrors.badRequest(`stop_sequences 合计不能超过 ${maxStopSequenceChars} 个字符`, 'stop_sequences_too_long');
  return list.length > 0 ? list : null;
}

/**
 * A chat request in another API's format (Anthropic Messages, Gemini generateContent, OpenAI
 * Responses): converted to the canonical OpenAI body, and answered in the client's format, natively
 * passed through when the channel speaks it.
 */
export function inboundChatJob(
  format: InboundFormat,
  body: JsonBody,
  params: Record<string, string>,
  clientHeaders: Record<string, string> = {},
): RelayJob {
  const model = format.modelOf(body, params).trim();
  if (!model) throw relayErrors.badRequest('model 不能为空', 'model_required');
  const isStream = format.isStream(body, params);
  const canonical: JsonBody = { ...format.toOpenAI(body, params), model, stream: isStream };
  // Anthropic clients are told which stop sequence matched: converted upstreams are sent as many as
  // they take (stop-sequences.ts), streaming, and the gateway scans for all (stop-scanner.ts).
  const stopSequences = format.wire === 'claude' ? stopSequencesOf(canonical.stop) : null;
  const { stop: _stop, ...withoutStop } = canonical;
  const upstreamCanonical = stopSequences ? { ...withoutStop, stream: true } : canonical;
  const applyStream = streamRules(upstreamCanonical, isStream || stopSequences !== null);
  return {
    endpoint: 'chat',
    model,
    isStream,
    clientWantsUsage: false,
    promptTokens: estimateChatPromptTokens(canonical),
    maxTokens: positiveInt(canonical.max_tokens) || positiveInt(canonical.max_completion_tokens),
    capOutput: (tokens) => {
      capOutputTokens(canonical, tokens);
      capOutputTokens(upstreamCanonical, tokens);
      format.capOutput(body, tokens);
    },
    calls: 1,
    answers: positiveInt(canonical.n) || 1,
    clientHeaders,
    buildBody: planChat({
      endpoint: 'chat',
      isStream,
      clientWantsUsage: false,
      canonical,
      inbound: format,
      nativeBody: body,
      stopSequences,
      openAiBody: (channel, upstreamModel) => {
        const out: JsonBody = { ...upstreamCanonical, model: upstreamModel };
        const sent = stopSequences && channel.adapter ? stopsForUpstream(stopSequences, channel.adapter, null, upstreamModel) : [];
        if (sent.length > 0) out.stop = sent;
        if (channel.paramOverride) Object.assign(out, channel.paramOverride);
        stripClaudeOnly(out);
        applyStream(out, channel.adapter?.chatStream.supportsStreamUsage ?? false);
        if (!isStream && !stopSequences) delete out.stream_options;
        channel.adapter?.chat.prepareBody(out);
        return out;
      },
    }),
    promptText: () => messagesText(canonical.messages),
    messages: canonical.messages,
    countPromptTokens: () => countChatPromptTokens(canonical.messages),
    readUsage: (adapter, response) => (response ? adapter.chat.readUsage(response) : null),
  };
}
