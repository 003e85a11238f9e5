/**
 * Required-argument validation against a tool's input schema, run by the loop before a call
 * reaches a gate or a process, so a malformed call is answered to the model instead of prompting
 * an operator for something that cannot run.
 */

/** Parses raw tool input: absent, empty or `null` is the empty object; anything else must be an object. */
export function parseToolInput(input: string): { ok: true; value: Record<string, unknown> } | { ok: false; error: string } {
  const text = input.trim();
  if (text === '' || text === 'null') return { ok: true, value: {} };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    return { ok: false, error: `arguments are not valid JSON: ${(err as Error).message}` };
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    return { ok: false, error: 'arguments must be a JSON object' };
  }
  return { ok: true, value: parsed as Record<string, unknown> };
}

/** The schema's `required` names, in schema order; anything that is not a string list is none. */
export function requiredNames(schema: Readonly<Record<string, unknown>>): string[] {
  const req = schema['required'];
  return Array.isArray(req) ? req.filter((r): r is string => typeof r === 'string') : [];
}

/**
 * The required properties missing from `input`, in schema order. A property present with `null`
 * counts as missing: the application would receive an empty value it did not allow.
 */
export function missingRequired(schema: Readonly<Record<string, unknown>>, input: Readonly<Record<string, unknown>>): string[] {
  return requiredNames(schema).filter((name) => !Object.hasOwn(input, name) || input[name] === null);
}

/**
 * Validates raw input against the schema's required list. Returns `undefined` when the call may
 * proceed, else a message for the model naming every missing argument.
 */
export function validateRequired(schema: Readonly<Record<string, unknown>>, input: string): string | undefined {
  const parsed = parseToolInput(input);
  return parsed.ok ? requiredProblem(schema, parsed.value) : parsed.error;
}

/** `validateRequired` for input already parsed (see `parseToolInput`), so it is not parsed twice. */
export function requiredProblem(schema: Readonly<Record<string, unknown>>, input: Readonly<Record<string, unknown>>): string | undefined {
  const missing = missingRequired(schema, input);
  if (missing.length === 0) return undefined;
  const names = missing.map((m) => JSON.stringify(m)).join(', ');
  return `missing required argument${missing.length === 1 ? '' : 's'} ${names}`;
}
