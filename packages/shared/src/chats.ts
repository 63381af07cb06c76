/**
 * The Chats option: a JSON array of `{ name: link }` objects, the chat apps a user can open with one of
 * their keys (the side menu's /chat/{index}, /chat2link and the token row's chat menu). A link holds
 * placeholders the console fills in: {key} (the key with sk-), {address} (the server address,
 * URL-encoded), {cherryConfig} and {aionuiConfig} (base64 JSON that Cherry Studio and AionUI import).
 */
export type ChatEntry = Record<string, string>;

/**
 * new-api's default chat links (its setting/chat.go), less Fluent Read and CC Switch: those two are not
 * links but hooks into new-api's own console (a browser-extension bridge and an import dialog).
 */
export const defaultChats: ChatEntry[] = [
  { 'Cherry Studio': 'cherrystudio://providers/api-keys?v=1&data={cherryConfig}' },
  { AionUI: 'aionui://provider/add?v=1&data={aionuiConfig}' },
  {
    'Lobe Chat Official Example':
      'https://chat-preview.lobehub.com/?settings={"keyVaults":{"openai":{"apiKey":"{key}","baseURL":"{address}/v1"}}}',
  },
  {
    'AI as Workspace':
      'https://aiaw.app/set-provider?provider={"type":"openai","settings":{"apiKey":"{key}","baseURL":"{address}/v1","compatibility":"strict"}}',
  },
  { AMA: 'ama://set-api-key?server={address}&key={key}' },
  { OpenCat: 'opencat://team/join?domain={address}&token={key}' },
];

export const maxChats = 50;
export const maxChatNameLength = 64;
export const maxChatLinkLength = 4000;

/** Schemes that run code or read local data where the console opens them: never a chat link. */
const blockedSchemes = new Set([
  'javascript',
  'data',
  'vbscript',
  'file',
  'filesystem',
  'blob',
  'about',
  'view-source',
  'chrome',
  'chrome-extension',
  'intent',
]);

/**
 * web: an http(s) page, framed by /chat/{id}; app: an app's own scheme (cherrystudio://, opencat://),
 * opened; unsupported: no scheme (new-api's `fluentread`, `ccswitch` hooks) — kept, but not opened;
 * blocked: a scheme that runs code or reads local data.
 */
export type ChatLinkKind = 'web' | 'app' | 'unsupported' | 'blocked';

export function chatLinkKind(link: string): ChatLinkKind {
  const text = link.trim();
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(text)?.[1]?.toLowerCase();
  if (!scheme) return 'unsupported';
  if (blockedSchemes.has(scheme)) return 'blocked';
  if (scheme === 'http' || scheme === 'https') return /^https?:\/\/[^\s/?#]+/i.test(text) ? 'web' : 'unsupported';
  return 'app';
}

/** The entries of a Chats value as rows, in order (an object with several names gives several rows). */
export function chatRows(chats: unknown): { name: string; link: string }[] {
  if (!Array.isArray(chats)) return [];
  return chats.flatMap((entry) =>
    typeof entry === 'object' && entry !== null && !Array.isArray(entry)
      ? Object.entries(entry as Record<string, unknown>)
          .filter(([, link]) => typeof link === 'string')
          .map(([name, link]) => ({ name, link: link as string }))
      : [],
  );
}

/** What is wrong with a parsed Chats value, or null: the server's check and the editor's. */
export function chatsProblem(chats: unknown): string | null {
  if (!Array.isArray(chats)) return '必须是 JSON 数组';
  if (chats.length > maxChats) return `最多 ${maxChats} 个聊天应用`;
  const names = new Set<string>();
  for (const [index, entry] of chats.entries()) {
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry) || Object.keys(entry).length === 0)
      return `第 ${index + 1} 项必须是“名称: 链接”形式的对象`;
    for (const [name, link] of Object.entries(entry as Record<string, unknown>)) {
      if (name.trim() === '' || name.length > maxChatNameLength)
        return `第 ${index + 1} 项的名称不能为空，且不能超过 ${maxChatNameLength} 个字符`;
      if (names.has(name)) return `聊天应用名称 ${name} 重复`;
      names.add(name);
      if (typeof link !== 'string' || link.trim() === '' || link.length > maxChatLinkLength)
        return `聊天应用 ${name} 的链接不能为空，且不能超过 ${maxChatLinkLength} 个字符`;
      if (chatLinkKind(link) === 'blocked') return `聊天应用 ${name} 的链接不能使用 javascript:、data: 等会执行代码或读取本地数据的协议`;
    }
  }
  return null;
}
