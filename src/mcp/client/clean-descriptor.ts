/**
 * A server's words about its tools reach the model and the operator's terminal: the description,
 * and every `title` and `description` inside the input schema, are cleaned of terminal sequences,
 * control characters and bidirectional overrides. Nothing else in the schema is touched, since a
 * `pattern` or an enum value means what it says.
 */
import { cleanText } from '../../util/terminal-text.js';

const WORDS = new Set(['title', 'description']);

function cleanValue(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(cleanValue);
  if (typeof value !== 'object' || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = WORDS.has(k) && typeof v === 'string' ? cleanText(v) : cleanValue(v);
  return out;
}

/**
 * The schema with its words cleaned. The schema's depth is already bounded by the descriptor
 * check, so the recursion is too. A property named `title` or `description` keeps its name:
 * only string values are cleaned.
 */
export function cleanSchema(schema: Readonly<Record<string, unknown>>): Record<string, unknown> {
  return cleanValue(schema) as Record<string, unknown>;
}

/** The description as the model and the terminal may see it. */
export function cleanDescription(description: string): string {
  return cleanText(description).trim();
}
