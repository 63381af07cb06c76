// Shared setup for the web route-level tests (jsdom).
export {};
