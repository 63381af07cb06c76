/** The longest a cached answer is kept (30 days), for the token setting and the group table alike. */
export const maxResponseCacheTtl = 2_592_000;

/** `response_cache.groups`: a JSON object of group name → whole seconds from 0 to 30 days (relay/cache/). */
export function responseCacheGroupsCheck(value: string): string | null {
  const parsed: unknown = JSON.parse(value);
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return '必须是 JSON 对象';
  for (const ttl of Object.values(parsed)) {
    if (typeof ttl !== 'number' || !Number.isInteger(ttl) || ttl < 0 || ttl > maxResponseCacheTtl)
      return '每个分组的值必须是 0 到 2592000 的整数（秒）';
  }
  return null;
}
