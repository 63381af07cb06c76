/**
 * The shape of a generateContent request, before it is converted or passed through: the caller's 400
 * for what is malformed (never a crash in a converter).
 */
import { invalidPart } from '../../providers/shared/content-parts.js';

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => !!value && typeof value === 'object' && !Array.isArray(value);

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
    const declarations = tool.functionDeclarations ?? tool.function_declarations;
    if (declarations === undefined) return;
    if (!Array.isArray(declarations)) throw invalidPart(`tools[${i}].functionDeclarations`, 'functionDeclarations 必须是数组');
    declarations.forEach((declaration: unknown, j) => {
      if (!isObject(declaration) || typeof declaration.name !== 'string' || declaration.name === '') {
        throw invalidPart(`tools[${i}].functionDeclarations[${j}]`, '函数声明必须是带 name 的对象');
      }
    });
  });
}
