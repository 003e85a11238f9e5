/**
 * The environment a stdio server starts with: this process's own, minus every credential the
 * harness knows of, plus the entry's `env`. Inherited rather than replaced, because a child with
 * no PATH or HOME cannot run the servers operators actually wire up.
 */

/**
 * `base` minus `strip`, then `configured` on top. A name the operator wrote in the entry's `env`
 * is passed even when it is a credential name: that is an explicit grant for this one server.
 */
export function childEnvironment(
  base: Readonly<Record<string, string | undefined>>,
  strip: readonly string[],
  configured: Readonly<Record<string, string>>,
): Record<string, string> {
  const drop = new Set(strip);
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(base)) {
    if (v === undefined || drop.has(k)) continue;
    out[k] = v;
  }
  return { ...out, ...configured };
}
