/**
 * The shape of a generateContent request, before it is converted or passed through: one spelling of
 * its field names, and the caller's 400 for what is malformed (never a crash in a converter).
 */
import { invalidPart } from '../../providers/shared/content-parts.js';
import type { Json } from '@modelgate/shared';

const isObject = (value: unknown): value is Json => !!value && typeof value === 'object' && !Array.isArray(value);
const camel = (name: string) => name.replace(/_([a-z0-9])/g, (_match, letter: string) => letter.toUpperCase());

/** Renames an object's own snake_case keys to lowerCamel (one level; a key already in lowerCamel wins). */
function camelKeys(value: unknown): void {
  if (!isObject(value)) return;
  for (const key of Object.keys(value)) {
    if (!key.includes('_')) continue;
    const name = camel(key);
    if (!Object.hasOwn(value, name)) value[name] = value[key];
    delete value[key];
  }
}

const eachObject = (list: unknown, visit: (item: Json) => void) => {
  if (Array.isArray(list)) for (const item of list) if (isObject(item)) visit(item);
};

function camelParts(content: unknown): void {
  camelKeys(content);
  if (!isObject(content)) return;
  eachObject(content.parts, (part) => {
    camelKeys(part);
    camelKeys(part.inlineData);
    camelKeys(part.fileData);
    camelKeys(part.functionCall);
    camelKeys(part.functionResponse);
  });
}

/**
 * Google's API reads a request's field names in lowerCamel or in snake_case (proto JSON; its own curl
 * examples write `system_instruction`, `generation_config`, `inline_data`). The request's message
 * fields are renamed to lowerCamel in place, so the conversion and a native pass-through read one
 * spelling; what the caller wrote inside them (function arguments and results, JSON schemas) is
 * left as it is.
 */
export function normalizeGeminiRequest(body: Json): void {
  camelKeys(body);
  eachObject(body.contents, camelParts);
  camelParts(body.systemInstruction);
  camelKeys(body.generationConfig);
  if (isObject(body.generationConfig)) camelKeys(body.generationConfig.thinkingConfig);
  camelKeys(body.toolConfig);
  if (isObject(body.toolConfig)) camelKeys(body.toolConfig.functionCallingConfig);
  eachObject(body.tools, (tool) => {
    camelKeys(tool);
    eachObject(tool.functionDeclarations, camelKeys);
  });
}

/** The caller's 400 (in Google's shape) for a malformed system instruction, config or tool list. */
export function checkGeminiRequest(body: Json): void {
  const system = body.systemInstruction;
  if (system !== undefined) {
    if (!isObject(system)) throw invalidPart('systemInstruction', 'systemInstruction 必须是对象');
    if (system.parts !== undefined && !Array.isArray(system.parts)) throw invalidPart('systemInstruction.parts', 'parts 必须是数组');
    ((system.parts ?? []) as unknown[]).forEach((part, i) => {
      if (!isObject(part)) throw invalidPart(`systemInstruction.parts[${i}]`, 'part 必须是对象');
      if (part.text !== undefined && typeof part.text !== 'string') throw invalidPart(`systemInstruction.parts[${i}]`, 'text 必须是字符串');
    });
  }
  for (const name of ['generationConfig', 'toolConfig'] as const) {
    if (body[name] !== undefined && body[name] !== null && !isObject(body[name])) throw invalidPart(name, `${name} 必须是对象`);
  }
  if (body.tools === undefined) return;
  if (!Array.isArray(body.tools)) throw invalidPart('tools', 'tools 必须是数组');
  body.tools.forEach((tool: unknown, i) => {
    if (!isObject(tool)) throw invalidPart(`tools[${i}]`, 'tool 必须是对象');
    const declarations = tool.functionDeclarations;
    if (declarations === undefined) return;
    if (!Array.isArray(declarations)) throw invalidPart(`tools[${i}].functionDeclarations`, 'functionDeclarations 必须是数组');
    declarations.forEach((declaration: unknown, j) => {
      if (!isObject(declaration) || typeof declaration.name !== 'string' || declaration.name === '') {
        throw invalidPart(`tools[${i}].functionDeclarations[${j}]`, '函数声明必须是带 name 的对象');
      }
    });
  });
}
