/** The management API's response shape: every /api response is {success, message, data}. */
export interface Envelope<T> {
  success: boolean;
  message: string;
  data: T;
}

export function ok<T>(data: T, message = ''): Envelope<T> {
  return { success: true, message, data };
}

export function fail(message: string): Envelope<null> {
  return { success: false, message, data: null };
}
