import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import { normalizeDescription } from './validate.js';

/**
 * The one stored form of a memory, shared by every backend:
 *
 * ```
 * ---
 * description: <YAML scalar on one line>
 * ---
 *
 * <content verbatim>
 * ```
 *
 * The header is written by the YAML library, so a description holding a colon, a quote or a
 * leading dash cannot corrupt it.
 */
export function serializeEntry(description: string, content: string): string {
  const header = stringifyYaml({ description }, { lineWidth: 0, minContentWidth: 0 });
  return `---\n${header}---\n\n${content}`;
}

/** A parsed memory. */
export interface ParsedEntry {
  /** Normalized; empty when the file has no readable header. */
  readonly description: string;
  readonly content: string;
}

const OPEN = '---\n';
const CLOSE = '\n---\n';
const CLOSE_AT_END = '\n---';

/**
 * Reads the stored form leniently, so a file written by hand still reads: without an opening
 * `---` line, without a closing delimiter, or with a header that is not valid YAML, the whole text
 * is the body and the description is empty. Only the first closing delimiter counts (a body may
 * hold `---`), and one newline after it is dropped.
 */
export function parseEntry(text: string): ParsedEntry {
  const whole: ParsedEntry = { description: '', content: text };
  if (!text.startsWith(OPEN)) return whole;
  // Start at the opening line's own newline so an empty header (`---\n---\n`) is found.
  let close = text.indexOf(CLOSE, OPEN.length - 1);
  let bodyStart: number;
  if (close !== -1) {
    bodyStart = close + CLOSE.length;
  } else if (text.endsWith(CLOSE_AT_END) && text.length - CLOSE_AT_END.length >= OPEN.length - 1) {
    close = text.length - CLOSE_AT_END.length;
    bodyStart = text.length;
  } else {
    return whole;
  }
  const header = close < OPEN.length ? '' : text.slice(OPEN.length, close);
  let doc: unknown;
  try {
    doc = parseYaml(header);
  } catch {
    return whole;
  }
  let content = text.slice(bodyStart);
  if (content.startsWith('\n')) content = content.slice(1);
  return { description: normalizeDescription(descriptionOf(doc)), content };
}

function descriptionOf(doc: unknown): string {
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) return '';
  const value: unknown = (doc as Record<string, unknown>)['description'];
  // A hand-written `description: 42` or `description: yes` still says something.
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return '';
}
