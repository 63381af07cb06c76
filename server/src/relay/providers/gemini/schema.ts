/** JSON-schema keys Gemini's OpenAPI-subset Schema accepts; everything else is dropped. */
const allowedKeys = new Set([
  'type',
  'format',
  'description',
  'nullable',
  'enum',
  'properties',
  'required',
  'items',
  'minItems',
  'maxItems',
  'minimum',
  'maximum',
  'minLength',
  'maxLength',
  'pattern',
  'anyOf',
  'propertyOrdering',
  'title',
]);

/** String formats Gemini accepts; other formats (uri, email, ...) are dropped. */
const allowedStringFormats = new Set(['enum', 'date-time']);

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Cleans an OpenAI tool/response JSON schema for Gemini: drops unsupported keys ($schema,
 * additionalProperties, default, examples, const, $ref, ...), turns `type: [x, "null"]` into
 * `type: x, nullable: true`, and keeps `required` to names that exist in `properties`.
 */
export function cleanSchema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(cleanSchema);
  if (!isObject(schema)) return schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (!allowedKeys.has(key)) continue;
    if (key === 'properties' && isObject(value)) {
      out.properties = Object.fromEntries(Object.entries(value).map(([name, sub]) => [name, cleanSchema(sub)]));
    } else if (key === 'items' || key === 'anyOf') {
      out[key] = cleanSchema(value);
    } else {
      out[key] = value;
    }
  }
  if (Array.isArray(out.type)) {
    const types = (out.type as unknown[]).filter((type) => type !== 'null');
    if (types.length < (out.type as unknown[]).length) out.nullable = true;
    out.type = types[0] ?? 'string';
  }
  if (out.type === 'string' && typeof out.format === 'string' && !allowedStringFormats.has(out.format)) delete out.format;
  if (Array.isArray(out.required)) {
    const names = isObject(out.properties) ? Object.keys(out.properties) : [];
    out.required = (out.required as unknown[]).filter((name) => typeof name === 'string' && names.includes(name));
    if ((out.required as unknown[]).length === 0) delete out.required;
  }
  if (Array.isArray(out.enum)) out.enum = (out.enum as unknown[]).map(String);
  return out;
}

/** Function parameters for a declaration; an object schema without properties is omitted. */
export function cleanParameters(parameters: unknown): Record<string, unknown> | undefined {
  if (!isObject(parameters)) return undefined;
  const cleaned = cleanSchema(parameters) as Record<string, unknown>;
  if (cleaned.type === 'object' && (!isObject(cleaned.properties) || Object.keys(cleaned.properties).length === 0)) return undefined;
  return cleaned;
}
