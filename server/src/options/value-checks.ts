import { addressEntry, domainPattern, parsePortRanges } from '../lib/outbound-guard.js';
import { isApiVersion } from './api-version.js';
import { isSafetyThreshold } from './gemini-safety.js';

/** The checks of option values (options/registry.ts): each answers null for a good value, else the problem. */

/**
 * The largest ratio, price or token count a map option holds (UnsetModelRatio's bound too). Far
 * above any real price (a ratio of 1 is $2 per million tokens), and low enough that every quota
 * worked out from them stays a finite number: a ratio of 1e308 made the hold "Infinity".
 */
export const maxMapValue = 1_000_000;

/** A JSON object whose values are all finite numbers from 0 to maxMapValue (ratios and prices keyed by name). */
export const numberMapCheck = (value: string): string | null => {
  const parsed: unknown = JSON.parse(value);
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return '必须是 JSON 对象';
  for (const [name, ratio] of Object.entries(parsed)) {
    if (typeof ratio !== 'number' || !Number.isFinite(ratio) || ratio < 0) return `${name} 的值必须是非负数字`;
    if (ratio > maxMapValue) return `${name} 的值不能大于 ${maxMapValue}`;
  }
  return null;
};

export const stringMapCheck = (value: string): string | null => {
  const parsed: unknown = JSON.parse(value);
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return '必须是 JSON 对象';
  return Object.values(parsed).every((v) => typeof v === 'string') ? null : '值必须是字符串';
};

/** gemini.version_settings: a string map of API versions, each a path segment of every Gemini call's URL (v1, v1beta). */
export const apiVersionMapCheck = (value: string): string | null => {
  const problem = stringMapCheck(value);
  if (problem) return problem;
  const parsed = JSON.parse(value) as Record<string, string>;
  return Object.values(parsed).every(isApiVersion) ? null : '版本必须是 v1、v1beta 这样的版本名';
};

/** gemini.safety_settings: a string map of Gemini's block thresholds, sent with every Gemini call. */
export const safetyThresholdMapCheck = (value: string): string | null => {
  const problem = stringMapCheck(value);
  if (problem) return problem;
  const parsed = JSON.parse(value) as Record<string, string>;
  return Object.values(parsed).every(isSafetyThreshold)
    ? null
    : '阈值必须是 OFF、BLOCK_NONE、BLOCK_ONLY_HIGH、BLOCK_MEDIUM_AND_ABOVE、BLOCK_LOW_AND_ABOVE 或 HARM_BLOCK_THRESHOLD_UNSPECIFIED';
};

/** GroupGroupRatio: `{userGroup: {tokenGroup: ratio}}`, every ratio a finite number >= 0. */
export const groupGroupRatioCheck = (value: string): string | null => {
  const parsed: unknown = JSON.parse(value);
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return '必须是 JSON 对象';
  for (const [group, ratios] of Object.entries(parsed)) {
    if (typeof ratios !== 'object' || ratios === null || Array.isArray(ratios)) return `${group} 的值必须是 JSON 对象`;
    const problem = numberMapCheck(JSON.stringify(ratios));
    if (problem) return `${group}: ${problem}`;
  }
  return null;
};

/** AutoGroups: a JSON array of group names, in the order the `auto` group tries them. */
export const groupListCheck = (value: string): string | null => {
  const parsed: unknown = JSON.parse(value);
  if (!Array.isArray(parsed)) return '必须是 JSON 数组';
  return parsed.every((group) => typeof group === 'string' && group !== '' && group !== 'auto')
    ? null
    : '必须是分组名称的数组（不能包含 auto）';
};

/** fetch_setting.allowed_ports: a JSON array of ports and ranges as strings ("443", "8000-9000"). */
export const portListCheck = (value: string): string | null => {
  const parsed: unknown = JSON.parse(value);
  return Array.isArray(parsed) && parsePortRanges(parsed) !== null
    ? null
    : '必须是端口或端口范围字符串的 JSON 数组，如 ["443", "8000-9000"]';
};

/** fetch_setting.domain_list: a JSON array of domains ("example.com", "*.example.com"). */
export const domainListCheck = (value: string): string | null => {
  const parsed: unknown = JSON.parse(value);
  return Array.isArray(parsed) && parsed.every((entry) => domainPattern(entry) !== null)
    ? null
    : '必须是域名字符串的 JSON 数组，如 ["example.com", "*.example.com"]';
};

/** fetch_setting.ip_list: a JSON array of addresses and CIDR ranges ("203.0.113.7", "10.0.0.0/8", "2001:db8::/32"). */
export const addressListCheck = (value: string): string | null => {
  const parsed: unknown = JSON.parse(value);
  return Array.isArray(parsed) && parsed.every((entry) => addressEntry(entry) !== null)
    ? null
    : '必须是 IP 地址或 CIDR 网段字符串的 JSON 数组，如 ["203.0.113.7", "10.0.0.0/8"]';
};

export const arrayCheck = (value: string): string | null => (Array.isArray(JSON.parse(value)) ? null : '必须是 JSON 数组');

export const urlCheck = (value: string): string | null =>
  value === '' || /^https?:\/\/[^\s]+$/i.test(value) ? null : '必须是 http:// 或 https:// 开头的地址';

/** A status list such as `429,500-599`: codes and ranges within 100–599. */
export const statusListCheck = (value: string): string | null => {
  for (const item of value
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean)) {
    const range = /^(\d{3})(?:-(\d{3}))?$/.exec(item);
    if (!range || Number(range[1]) < 100 || Number(range[2] ?? range[1]) > 599 || Number(range[2] ?? range[1]) < Number(range[1]))
      return `${item} 不是有效的状态码或范围（如 429,500-599）`;
  }
  return null;
};
