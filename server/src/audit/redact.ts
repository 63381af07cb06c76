/**
 * Secrets never reach an audit row (docs/audit.md): a field whose name says it holds a secret is
 * removed wherever it sits in a snapshot or a request body; what is kept is only whether it changed
 * (`key_changed: true` on a channel). Names are matched case-insensitively, ignoring `_`, `-` and `.`;
 * a name ending in Token is a secret (SMTPToken, MetricsToken), one ending in Tokens a count.
 */
const secretNames = new Set([
  'key',
  'keys',
  'password',
  'originalpassword',
  'newpassword',
  'confirmpassword',
  'secret',
  'token',
  'accesstoken',
  'refreshtoken',
  'idtoken',
  'totp',
  'totpsecret',
  'code',
  'backupcodes',
  'recoverycodes',
  'clientsecret',
  'apikey',
  'apisecret',
  'privatekey',
  'smtptoken',
  'smtppassword',
  'webhooksecret',
  'signingsecret',
  'authorization',
  'cookie',
  'credential',
  'credentials',
]);

/** True for a field name that holds a secret: the list above, or one ending in Secret, Password, Token or a secret Key. */
export function isSecretName(name: string): boolean {
  const plain = name.toLowerCase().replace(/[_.-]/g, '');
  if (secretNames.has(plain)) return true;
  // Counts and ids are not secrets: max_tokens, token_id, token_name, key_mode, keyword...
  return /(secret|password|passwd|token|apikey|secretkey|privatekey|validkey|epaykey)$/.test(plain);
}

/**
 * A copy of `value` without secret fields (at any depth; `extraSecrets` at the top level, for a
 * secret option's `value`); `removed` lists the top-level ones taken out.
 */
export function redact(value: unknown, extraSecrets: string[] = []): { value: unknown; removed: string[] } {
  const removed: string[] = [];
  const walk = (node: unknown, depth: number): unknown => {
    if (Array.isArray(node)) return depth > 20 ? '[deep]' : node.map((item) => walk(item, depth + 1));
    if (node === null || typeof node !== 'object') return node;
    if (depth > 20) return '[deep]';
    const out: Record<string, unknown> = {};
    for (const [field, inner] of Object.entries(node)) {
      if (isSecretName(field) || (depth === 0 && extraSecrets.includes(field))) {
        if (depth === 0) removed.push(field);
        continue;
      }
      out[field] = walk(inner, depth + 1);
    }
    return out;
  };
  return { value: walk(value, 0), removed };
}

type Snapshot = Record<string, unknown> | null;

/**
 * Before and after of one change, redacted: each secret field present on either side is replaced,
 * in `after`, by `<field>_changed` (true when its value differs, or when a body without a before set it).
 */
export function redactChange(before: Snapshot, after: Snapshot, extraSecrets: string[] = []): { before: Snapshot; after: Snapshot } {
  const cleanBefore = before ? (redact(before, extraSecrets).value as Record<string, unknown>) : null;
  if (!after) return { before: cleanBefore, after: null };
  const { value, removed } = redact(after, extraSecrets);
  const cleanAfter = value as Record<string, unknown>;
  for (const field of removed) {
    const changed = !before || before[field] !== after[field];
    cleanAfter[`${field}_changed`] = changed;
  }
  return { before: cleanBefore, after: cleanAfter };
}
