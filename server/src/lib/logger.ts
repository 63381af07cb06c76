import type { LoggerOptions } from 'pino';

/**
 * Pino options shared by the app. Secrets never reach a log line: request headers that carry
 * credentials and any body field named like a secret are redacted at the serializer level.
 */
export const redactedPaths = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-api-key"]',
  'req.headers["x-goog-api-key"]',
  'req.headers["api-key"]',
  'res.headers["set-cookie"]',
  '*.password',
  '*.key',
  '*.token',
  '*.access_token',
  '*.secret',
  '*.SMTPToken',
];

export function loggerOptions(level: string): LoggerOptions {
  return {
    level,
    redact: { paths: redactedPaths, censor: '[redacted]' },
    serializers: {
      req(request: { method: string; url: string; ip?: string }) {
        // Query strings can carry ?key= (Gemini) or ?turnstile= tokens: log the path only.
        const url = request.url.split('?')[0];
        return { method: request.method, url, ip: request.ip };
      },
    },
  };
}
