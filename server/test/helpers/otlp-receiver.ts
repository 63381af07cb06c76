import http from 'node:http';
import { listenLocal } from './local-http.js';

/** One span as an OTLP/HTTP JSON export carries it, with its attributes flattened. */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  /** OTLP SpanKind: 2 server, 3 client. */
  kind: number;
  attributes: Record<string, string | number | boolean>;
  events: Array<{ name: string; timeUnixNano: string }>;
  /** 1 ok, 2 error. */
  status: number;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  /** The resource's attributes (service.name). */
  resource: Record<string, string | number | boolean>;
}

export interface OtlpReceiver {
  url: string;
  spans: ReceivedSpan[];
  /** The headers of each export request (collector API keys). */
  exportHeaders: http.IncomingHttpHeaders[];
  close(): Promise<void>;
}

type AnyValue = { stringValue?: string; intValue?: string | number; doubleValue?: number; boolValue?: boolean };
type KeyValue = { key: string; value: AnyValue };

function flatten(list: KeyValue[] | undefined): Record<string, string | number | boolean> {
  const out: Record<string, string | number | boolean> = {};
  for (const { key, value } of list ?? []) {
    if (value.stringValue !== undefined) out[key] = value.stringValue;
    else if (value.intValue !== undefined) out[key] = Number(value.intValue);
    else if (value.doubleValue !== undefined) out[key] = value.doubleValue;
    else if (value.boolValue !== undefined) out[key] = value.boolValue;
  }
  return out;
}

/**
 * A local OTLP/HTTP collector: accepts `POST /v1/traces` in the JSON encoding (what ModelGate's
 * exporter sends) and keeps the spans; anything else is a 404.
 */
export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const exportHeaders: http.IncomingHttpHeaders[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/traces' || !(req.headers['content-type'] ?? '').includes('application/json')) {
        res.writeHead(404).end();
        return;
      }
      exportHeaders.push(req.headers);
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      for (const resourceSpans of body.resourceSpans ?? []) {
        const resource = flatten(resourceSpans.resource?.attributes);
        for (const scope of resourceSpans.scopeSpans ?? []) {
          for (const span of scope.spans ?? []) {
            spans.push({
              traceId: span.traceId,
              spanId: span.spanId,
              parentSpanId: span.parentSpanId ?? '',
              name: span.name,
              kind: span.kind,
              attributes: flatten(span.attributes),
              events: (span.events ?? []).map((event: any) => ({ name: event.name, timeUnixNano: String(event.timeUnixNano) })),
              status: span.status?.code ?? 0,
              startTimeUnixNano: String(span.startTimeUnixNano),
              endTimeUnixNano: String(span.endTimeUnixNano),
              resource,
            });
          }
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  const url = await listenLocal(server);
  return {
    url,
    spans,
    exportHeaders,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
