/**
 * The environment a tool subprocess gets: the caller's, minus every credential variable, plus
 * `LLMFORMAT=1` so applications can answer in a model-friendly form. Inherited rather than
 * replaced, because a program without PATH or HOME cannot do the work it was wrapped for.
 */
export function toolEnvironment(
  base: Readonly<Record<string, string | undefined>>,
  credentialNames: readonly string[],
  workDir?: string,
): Record<string, string> {
  const strip = new Set(credentialNames);
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(base)) {
    if (v !== undefined && !strip.has(k)) out[k] = v;
  }
  out['LLMFORMAT'] = '1';
  if (workDir !== undefined) out['PWD'] = workDir;
  return out;
}
