import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import type { AppContext } from '../../context.js';
import { requestLanguage } from '../../lib/i18n/index.js';
import { clientStatus, RelayError, retryAfterHeaders, toRelayError } from '../errors.js';
import { claudeFormat } from '../formats/anthropic/index.js';
import { geminiFormat, listGeminiModels, parseModelPath } from '../formats/gemini/index.js';
import { responsesFormat, responsesFormatFor } from '../formats/responses/index.js';
import type { InboundFormat } from '../formats/types.js';
import { countPromptTokens } from '../count-tokens.js';
import { geminiEmbeddingsJob } from '../jobs/gemini-embeddings.js';
import { inboundChatJob } from '../jobs/inbound.js';
import { requireObject } from '../jobs/json-body.js';
import { modelsFor } from './models.js';
import { registerGeminiVideoReads, submitGeminiVideo } from './gemini-videos.js';
import { authenticateToken } from '../pipeline/authenticate.js';
import { authenticateFirst, callerOf } from '../pipeline/authenticate-first.js';
import { fastifyExchange } from '../pipeline/exchange.js';
import { runRelay } from '../pipeline/relay-call.js';
import { openResponseThread } from '../response-store.js';
import type { AdapterOptions } from '../providers/types.js';
import type { RelayState } from '../state.js';

/** Errors of a format's routes in that format's envelope (Anthropic, Google, OpenAI), in the caller's language. */
function formatErrorHandler(format: InboundFormat) {
  return (error: FastifyError | Error, request: FastifyRequest, reply: FastifyReply) => {
    if (reply.sent || reply.raw.headersSent) return;
    const relayError = toRelayError(error, request.log, requestLanguage(request));
    const status = clientStatus(relayError);
    const wait = retryAfterHeaders(relayError);
    if (wait) reply.headers(wait);
    return reply.code(status).send(format.errorBody(status, relayError.message, relayError instanceof RelayError ? relayError.code : null));
  };
}

const headerValue = (value: string | string[] | undefined): string | undefined => (Array.isArray(value) ? value[0] : value);

/** anthropic-version / anthropic-beta, forwarded to Claude upstreams. */
function anthropicHeadersOf(request: FastifyRequest): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const name of ['anthropic-version', 'anthropic-beta']) {
    const value = headerValue(request.headers[name]);
    if (value) headers[name] = value;
  }
  return headers;
}

/** Gemini clients send the key as `?key=` or `x-goog-api-key` (Bearer also works). */
const googleKeyOf = (request: FastifyRequest): string | undefined =>
  headerValue(request.headers['x-goog-api-key']) ?? (request.query as Record<string, string | undefined> | undefined)?.key;

const geminiChatActions = new Set(['generateContent', 'streamGenerateContent']);

/** A Gemini request's temperature (generationConfig.temperature), for the response cache. */
const geminiTemperature = (body: Record<string, unknown>): unknown => {
  const config = body.generationConfig;
  return config && typeof config === 'object' ? (config as Record<string, unknown>).temperature : undefined;
};

/** Gemini countTokens takes `contents` or a whole `generateContentRequest`. */
const countedGeminiBody = (body: Record<string, unknown>): Record<string, unknown> => {
  const nested = body.generateContentRequest;
  if (nested === undefined) return body;
  if (!nested || typeof nested !== 'object' || Array.isArray(nested))
    throw new RelayError(400, 'invalid_request', 'generateContentRequest 必须是对象');
  const { model: _model, ...request } = nested as Record<string, unknown>;
  return request;
};

/**
 * Inbound APIs besides OpenAI chat: Anthropic Messages, Gemini generateContent
 * and model list, OpenAI Responses. Each runs through the same relay (auth, billing, failover) on
 * any channel: native pass-through when the channel speaks the format, conversion otherwise.
 */
export async function registerInboundRoutes(
  app: FastifyInstance,
  ctx: AppContext,
  relay: RelayState,
  byToken: onRequestAsyncHookHandler,
): Promise<void> {
  const bodyLimit = ctx.config.maxRequestBodyBytes;
  const options = ctx.options as unknown as AdapterOptions;
  await app.register(async (scope) => {
    scope.setErrorHandler(formatErrorHandler(claudeFormat));
    scope.post('/v1/messages', { bodyLimit, onRequest: byToken }, async (request, reply) => {
      const caller = callerOf(request);
      const body = requireObject(request.body);
      const job = inboundChatJob(claudeFormat, body, {}, anthropicHeadersOf(request));
      job.responseCache = { body, temperature: body.temperature };
      await runRelay(ctx, relay, fastifyExchange(request, reply), caller, job);
      return reply;
    });
    // Counted by Anthropic on a Claude channel, locally elsewhere; not billed.
    scope.post('/v1/messages/count_tokens', { bodyLimit, onRequest: byToken }, async (request) => {
      const caller = callerOf(request);
      const body = { max_tokens: 1, ...requireObject(request.body) };
      const inputTokens = await countPromptTokens(relay, options, caller, {
        format: claudeFormat,
        body,
        params: {},
        clientHeaders: anthropicHeadersOf(request),
      });
      return { input_tokens: inputTokens };
    });
  });
  await app.register(async (scope) => {
    scope.setErrorHandler(formatErrorHandler(geminiFormat));
    const byGoogleKey = authenticateFirst((request) => authenticateToken(ctx, relay, request, googleKeyOf(request)));
    for (const version of ['v1beta', 'v1']) {
      scope.post(`/${version}/models/*`, { bodyLimit, onRequest: byGoogleKey }, async (request, reply) => {
        const params = request.params as Record<string, string>;
        const { model, action } = parseModelPath(params);
        const isKnown =
          geminiChatActions.has(action) ||
          action === 'countTokens' ||
          action === 'embedContent' ||
          action === 'batchEmbedContents' ||
          action === 'predictLongRunning';
        if (!isKnown) throw new RelayError(404, 'NOT_FOUND', `不支持的操作 ${action}`);
        const caller = callerOf(request);
        const body = requireObject(request.body);
        // Veo: a video task (routes/gemini-videos.ts).
        if (action === 'predictLongRunning') return reply.send(await submitGeminiVideo(ctx, relay, request, model, body));
        if (action === 'countTokens') {
          const chatParams = { ...params, '*': `${model}:generateContent` };
          const totalTokens = await countPromptTokens(relay, options, caller, {
            format: geminiFormat,
            body: countedGeminiBody(body),
            params: chatParams,
          });
          return reply.send({ totalTokens });
        }
        const isEmbedding = action === 'embedContent' || action === 'batchEmbedContents';
        const job = isEmbedding ? geminiEmbeddingsJob(model, action, body) : inboundChatJob(geminiFormat, body, params);
        if (!isEmbedding) job.responseCache = { body, temperature: geminiTemperature(body) };
        await runRelay(ctx, relay, fastifyExchange(request, reply), caller, job);
        return reply;
      });
    }
    registerGeminiVideoReads(scope, ctx, relay, byGoogleKey);
    scope.get('/v1beta/models', async (request) => {
      const caller = await authenticateToken(ctx, relay, request, googleKeyOf(request));
      return listGeminiModels(modelsFor(relay, caller));
    });
  });
  await app.register(async (scope) => {
    scope.setErrorHandler(formatErrorHandler(responsesFormat));
    scope.post('/v1/responses', { bodyLimit, onRequest: byToken }, async (request, reply) => {
      const caller = callerOf(request);
      // previous_response_id: a conversation the gateway kept is rebuilt; this response is kept unless store is false.
      const { body, thread } = await openResponseThread(ctx, request.log, caller.user.id, requireObject(request.body));
      try {
        await runRelay(
          ctx,
          relay,
          fastifyExchange(request, reply),
          caller,
          inboundChatJob(thread ? responsesFormatFor(thread) : responsesFormat, body, {}),
        );
      } finally {
        await thread?.finish().catch((error: unknown) => request.log.error({ err: error }, 'stored response not kept'));
      }
      return reply;
    });
  });
}
