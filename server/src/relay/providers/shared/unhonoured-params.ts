import { RelayError } from '../../errors.js';
import type { Json } from '@modelgate/shared';

/**
 * Parameters a channel cannot honour are refused with a 400 naming them, never dropped: a client
 * that asked for two choices (`n`, Gemini's `candidateCount`) or for log probabilities must not get
 * a 200 with one choice and none.
 */
export function refuseUnhonoured(body: Json, channel: string, unsupported: { n?: boolean; logprobs?: boolean }): void {
  if (unsupported.n && typeof body.n === 'number' && body.n > 1) {
    throw new RelayError(
      400,
      'unsupported_parameter',
      `${channel} 渠道不支持参数 n > 1（candidateCount > 1）：每次请求只能生成一个回答`,
      false,
      'invalid_request_error',
    );
  }
  if (unsupported.logprobs && (body.logprobs === true || (typeof body.top_logprobs === 'number' && body.top_logprobs > 0))) {
    throw new RelayError(400, 'unsupported_parameter', `${channel} 渠道不支持参数 logprobs / top_logprobs`, false, 'invalid_request_error');
  }
}
