import { z } from 'zod';
import { ConfigError } from './errors.js';
import type { ConfigIssue } from './errors.js';

/**
 * The one strict decoder for every backend's `options` block. A backend hands it the canonical
 * JSON kept by `prepare`, its own zod schema (a `z.strictObject`), and the dotted key of the
 * block; an unknown or mistyped option fails the same way for every backend.
 */
export function decodeOptions<S extends z.ZodType>(json: string, schema: S, key: string, backend: string): z.infer<S> {
  let data: unknown;
  try {
    data = JSON.parse(json);
  } catch (err) {
    throw ConfigError.of('options', key, `is not valid JSON: ${(err as Error).message}`);
  }
  // jitless: each options block is parsed once, so compiling its schema first would not pay
  const parsed = schema.safeParse(data, { jitless: true });
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues.flatMap((issue): ConfigIssue[] => {
    const path = issue.path.filter((p) => typeof p !== 'symbol').map(String);
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((k) => ({
        code: 'options' as const,
        key: [key, ...path, k].join('.'),
        message: `is not an option of the ${backend} backend${acceptedList(schema)}`,
      }));
    }
    return [{ code: 'options' as const, key: [key, ...path].join('.'), message: `${issue.message} (${backend} backend)` }];
  });
  throw new ConfigError(issues);
}

function acceptedList(schema: z.ZodType): string {
  if (schema instanceof z.ZodObject) {
    const keys = Object.keys(schema.shape);
    return keys.length === 0 ? '; it takes no options' : `; accepted: ${keys.join(', ')}`;
  }
  return '';
}
