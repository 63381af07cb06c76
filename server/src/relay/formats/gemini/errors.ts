const statusNames: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  402: 'FAILED_PRECONDITION',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  409: 'ABORTED',
  413: 'INVALID_ARGUMENT',
  429: 'RESOURCE_EXHAUSTED',
  499: 'CANCELLED',
  500: 'INTERNAL',
  501: 'NOT_IMPLEMENTED',
  503: 'UNAVAILABLE',
  504: 'DEADLINE_EXCEEDED',
};

/** Google's error envelope; `status` is the canonical gRPC name (or the code when it already is one). */
export function geminiErrorBody(
  status: number,
  message: string,
  code: string | null,
): { error: { code: number; message: string; status: string } } {
  const name = code && /^[A-Z_]+$/.test(code) ? code : (statusNames[status] ?? (status >= 500 ? 'INTERNAL' : 'INVALID_ARGUMENT'));
  return { error: { code: status, message, status: name } };
}
