/** A JSON array of names as stored in `models` / `groups`; anything else reads as empty (covers all). */
export function namesOf(raw: string): string[] {
  try {
    const value: unknown = JSON.parse(raw);
    return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
  } catch {
    return [];
  }
}

/** Whether a subscription with these `models` and `groups` pays for a call of `model` in `group`. */
export function covers(row: { models: string; groups: string }, model: string, group: string): boolean {
  const models = namesOf(row.models);
  const groups = namesOf(row.groups);
  return (models.length === 0 || models.includes(model)) && (groups.length === 0 || groups.includes(group));
}
