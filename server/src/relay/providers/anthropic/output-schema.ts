import type { Json } from '@modelgate/shared';

/**
 * A caller's JSON schema as Claude's structured outputs (`output_config.format`) take it, or null when
 * they cannot express it and the tool is needed instead. Anthropic documents a subset of JSON Schema:
 *   - every object must say `additionalProperties: false`: added where absent; an object that allows
 *     other properties (a map, `additionalProperties` true or a schema, `patternProperties`) or says
 *     nothing of its properties (free-form) cannot be expressed;
 *   - numeric (`minimum`, `maximum`, `exclusive…`, `multipleOf`), string-length (`minLength`,
 *     `maxLength`) and array-size (`maxItems`, `minItems` above 1) constraints and unknown string
 *     formats are refused (a 400): as Anthropic's own SDKs do, they move into the description, where
 *     the model still reads them;
 *   - `oneOf` is not supported: it becomes `anyOf` (its options are alternatives either way);
 *   - recursive and external `$ref`s cannot be expressed.
 * The caller's schema is never changed: the result is a copy.
 */
export function claudeOutputSchema(schema: Json): Json | null {
  if (hasUnsupportedRef(schema)) return null;
  const { $schema: _meta, ...root } = schema;
  // The root is an object (response_format's rule, shared/structured-output.ts): said where left implicit.
  const isImplicit = root.type === undefined && !['anyOf', 'oneOf', 'allOf', '$ref'].some((key) => root[key] !== undefined);
  return adapt(isImplicit ? { type: 'object', ...root } : root);
}

const movedConstraints = ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf', 'minLength', 'maxLength', 'maxItems'];
const supportedFormats = new Set(['date-time', 'time', 'date', 'duration', 'email', 'hostname', 'uri', 'ipv4', 'ipv6', 'uuid']);
const schemaMaps = ['properties', '$defs', 'definitions'];
const schemaLists = ['anyOf', 'oneOf', 'allOf', 'prefixItems'];

const isObject = (value: unknown): value is Json => !!value && typeof value === 'object' && !Array.isArray(value);

const typesOf = (node: Json): unknown[] => (Array.isArray(node.type) ? node.type : [node.type]);

function adapt(node: Json): Json | null {
  const out: Json = { ...node };
  const moved: Json = {};
  for (const key of movedConstraints) {
    const value = out[key];
    if (value === undefined) continue;
    delete out[key];
    // zod's bounds of every integer (±2^53−1) say nothing "integer" does not.
    if (typeof value === 'number' && Math.abs(value) === Number.MAX_SAFE_INTEGER) continue;
    moved[key] = value;
  }
  if (typeof out.minItems === 'number' && out.minItems > 1) {
    moved.minItems = out.minItems;
    delete out.minItems;
  }
  if (typeof out.format === 'string' && !supportedFormats.has(out.format)) {
    moved.format = out.format;
    delete out.format;
  }
  if (Object.keys(moved).length > 0)
    out.description = `${typeof out.description === 'string' ? `${out.description}\n\n` : ''}${JSON.stringify(moved)}`;
  if (typesOf(out).includes('object') || out.properties !== undefined) {
    if (out.patternProperties !== undefined || (out.additionalProperties !== undefined && out.additionalProperties !== false)) return null;
    if (out.properties === undefined && out.additionalProperties === undefined) return null;
    out.additionalProperties = false;
  }
  for (const key of schemaMaps) {
    if (!isObject(out[key])) continue;
    const adapted: Json = {};
    for (const [name, child] of Object.entries(out[key] as Json)) {
      const next = isObject(child) ? adapt(child) : child;
      if (next === null) return null;
      adapted[name] = next;
    }
    out[key] = adapted;
  }
  for (const key of schemaLists) {
    if (!Array.isArray(out[key])) continue;
    const adapted = (out[key] as unknown[]).map((child) => (isObject(child) ? adapt(child) : child));
    if (adapted.includes(null)) return null;
    out[key] = adapted;
  }
  if (Array.isArray(out.oneOf) && out.anyOf === undefined) {
    out.anyOf = out.oneOf;
    delete out.oneOf;
  }
  for (const key of ['items', 'not']) {
    if (!isObject(out[key])) continue;
    const adapted = adapt(out[key] as Json);
    if (adapted === null) return null;
    out[key] = adapted;
  }
  return out;
}

/** The schema a local `$ref` (`#`, `#/$defs/x`, `#/definitions/x`, …) points at, or undefined. */
function resolveRef(root: Json, ref: string): unknown {
  let target: unknown = root;
  for (const part of ref.replace(/^#\/?/, '').split('/').filter(Boolean)) {
    const key = part.replace(/~1/g, '/').replace(/~0/g, '~');
    target = isObject(target) ? target[key] : undefined;
  }
  return target;
}

/** Whether a `$ref` points outside the schema, nowhere, or back into itself (a recursive schema). */
function hasUnsupportedRef(root: Json): boolean {
  const open = new Set<string>();
  const checked = new Set<string>();
  const visit = (node: unknown): boolean => {
    if (Array.isArray(node)) return node.some(visit);
    if (!isObject(node)) return false;
    const ref = node.$ref;
    if (typeof ref === 'string' && !checked.has(ref)) {
      if (!ref.startsWith('#') || open.has(ref)) return true;
      const target = resolveRef(root, ref);
      if (!isObject(target)) return true;
      open.add(ref);
      if (visit(target)) return true;
      open.delete(ref);
      checked.add(ref);
    }
    // Definitions count where a $ref reaches them, not where they are written.
    return Object.entries(node).some(
      ([key, child]) => key !== '$defs' && key !== 'definitions' && key !== 'const' && key !== 'enum' && visit(child),
    );
  };
  return visit(root);
}
