import type { Json } from '@modelgate/shared';

/**
 * An OpenAI embeddings answer with each float vector as base64 of little-endian float32 (what
 * `encoding_format: "base64"` asks for; the official openai client asks for it by default), for
 * converted providers that answer with float lists. Vectors that are not number lists stay as they are.
 */
export function withBase64Embeddings(response: Json): Json {
  if (!Array.isArray(response.data)) return response;
  const data = (response.data as Json[]).map((item) => {
    const vector = item.embedding;
    if (!Array.isArray(vector) || !vector.every((value) => typeof value === 'number')) return item;
    const floats = Float32Array.from(vector as number[]);
    return { ...item, embedding: Buffer.from(floats.buffer, floats.byteOffset, floats.byteLength).toString('base64') };
  });
  return { ...response, data };
}
