import { KnowledgeError } from './errors.js';
import { HEADING_SEPARATOR } from './chunker.js';

/** A parsed citation: the stored document path and the chunk's 0-based ordinal in it. */
export interface Citation {
  readonly path: string;
  readonly ordinal: number;
}

/** The one citation format, `<path>#<ordinal>` (`docs/design.md#3`), printed and parsed back. */
export function formatCitation(path: string, ordinal: number): string {
  return `${path}#${ordinal}`;
}

/**
 * Parses `<path>#<ordinal>`, splitting at the last `#` so a path holding `#` still works. Refuses
 * a missing suffix and a non-numeric or negative ordinal with the expected form in the message.
 */
export function parseCitation(text: string): Citation {
  const at = text.lastIndexOf('#');
  if (at === -1) {
    throw new KnowledgeError(
      'bad_citation',
      `citation ${JSON.stringify(text)} is missing the '#<ordinal>' suffix; expected <path>#<ordinal>, e.g. docs/design.md#3`,
    );
  }
  const path = text.slice(0, at);
  const num = text.slice(at + 1);
  if (path === '' || !/^\d{1,9}$/.test(num)) {
    throw new KnowledgeError(
      'bad_citation',
      `citation ${JSON.stringify(text)} is malformed; expected <path>#<ordinal>, e.g. docs/design.md#3`,
    );
  }
  return { path, ordinal: Number(num) };
}

/** A heading turned into the anchor most Markdown sites generate (lower case, dashes, no punctuation). */
export function headingAnchor(headingPath: string): string {
  const parts = headingPath.split(HEADING_SEPARATOR);
  const last = parts[parts.length - 1] ?? '';
  return last
    .toLowerCase()
    .replace(/[`*_~[\]()]/g, '')
    .replace(/[^\p{L}\p{N}\s-]/gu, '')
    .trim()
    .replace(/\s+/g, '-');
}

/** An operator's rule mapping stored paths to URLs. */
export interface CitationRuleInput {
  readonly pattern: string;
  /** `$1`-style group references and `${anchor}` for the heading anchor. */
  readonly replace: string;
}

/** A compiled citation rule set. */
export type CitationMapper = (path: string, headingPath: string) => string | undefined;

/**
 * Compiles `harness.knowledge.citations`. The first rule whose pattern matches the path wins;
 * `${anchor}` becomes the anchor of the chunk's deepest heading (empty without one), and `${1}`
 * is accepted as a spelling of `$1`. No rule matching means no URL, never a guessed one.
 */
export function citationMapper(rules: readonly CitationRuleInput[]): CitationMapper {
  const compiled = rules.map((r) => ({ re: new RegExp(r.pattern, 'u'), replace: r.replace.replace(/\$\{(\d+)\}/g, '$$$1') }));
  return (path, headingPath) => {
    for (const r of compiled) {
      if (!r.re.test(path)) continue;
      // a literal `$` in the anchor must not read as a group reference
      const anchor = headingAnchor(headingPath).replaceAll('$', '$$$$');
      // with no heading there is no anchor; drop the dangling '#'
      return path.replace(r.re, r.replace.replaceAll('${anchor}', anchor)).replace(/#$/, '');
    }
    return undefined;
  };
}
