/**
 * A decoded JSON object whose fields are not known yet: request and response bodies, provider
 * payloads, option values. Declared once here so server, console and tests agree on it; the lint
 * config rejects a new local copy (eslint.config.js, "one Json type").
 */
export type Json = Record<string, unknown>;
