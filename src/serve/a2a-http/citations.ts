/**
 * The knowledge passages a served run's answer rests on, gathered from its `knowledge_search`
 * results: each ref, its section and, where a citation rule maps it, its URL.
 */
export interface CitedPassage {
  readonly ref: string;
  readonly section?: string;
  readonly url?: string;
}

/** The passages one `knowledge_search` result lists; nothing for output that is not one. */
export function passagesOf(output: string): CitedPassage[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(output);
  } catch {
    return [];
  }
  const results = typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>)['results'] : undefined;
  if (!Array.isArray(results)) return [];
  const out: CitedPassage[] = [];
  for (const r of results as unknown[]) {
    if (typeof r !== 'object' || r === null) continue;
    const { ref, section, url } = r as Record<string, unknown>;
    if (typeof ref !== 'string' || ref === '') continue;
    out.push({
      ref,
      ...(typeof section === 'string' && section !== '' ? { section } : {}),
      ...(typeof url === 'string' && url !== '' ? { url } : {}),
    });
  }
  return out;
}

/**
 * What the answer cites: the retrieved passages whose ref the answer names, or, when it names
 * none, every passage the run retrieved (what it read to answer).
 */
export function citedIn(answer: string, retrieved: ReadonlyMap<string, CitedPassage>): CitedPassage[] {
  const all = [...retrieved.values()];
  const named = all.filter((p) => answer.includes(p.ref));
  return named.length > 0 ? named : all;
}
