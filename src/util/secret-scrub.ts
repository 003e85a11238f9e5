/**
 * Removes known secret values from text. A tool's own environment is stripped of credentials, but
 * a tool can still read them elsewhere (another process's `/proc/<pid>/environ` or `cmdline`, a
 * config file) and print them; whatever the harness holds as a credential is therefore cut out of
 * every tool output, error and log line before a model or a person sees it.
 */
import { readFileSync } from 'node:fs';

/** One credential the harness holds: the variable (or key) it came from and its resolved value. */
export interface Secret {
  readonly name: string;
  readonly value: string;
}

/** Values shorter than this are left alone: replacing `1` or `dev` everywhere would wreck output. */
export const MIN_SECRET_LENGTH = 8;

/** The text that stands in for a secret. */
export function secretMarker(name: string): string {
  return `[${name}-REDACTED]`;
}

/** A function that scrubs text of the secrets it was built with. */
export type Scrubber = (text: string) => string;

/**
 * Builds a scrubber for `secrets`: each value of at least `MIN_SECRET_LENGTH` characters (after
 * trimming) is replaced wherever it occurs by `[NAME-REDACTED]`, longest value first so a secret
 * that contains another is replaced whole. Duplicate values keep the first name. With nothing to
 * scrub it returns the text unchanged.
 */
export function secretScrubber(secrets: Iterable<Secret>): Scrubber {
  const byValue = new Map<string, string>();
  for (const s of secrets) {
    const value = s.value.trim();
    if (value.length >= MIN_SECRET_LENGTH && !byValue.has(value)) byValue.set(value, s.name);
  }
  const ordered = [...byValue.entries()].sort((a, b) => b[0].length - a[0].length);
  if (ordered.length === 0) return (text) => text;
  return (text) => {
    let out = text;
    for (const [value, name] of ordered) if (out.includes(value)) out = out.split(value).join(secretMarker(name));
    return out;
  };
}

/**
 * The secrets among `env` named by `names`: the credentials a command must not see, as values to
 * scrub from what it prints. Unset and empty variables are skipped.
 */
export function secretsFromEnv(env: Readonly<Record<string, string | undefined>>, names: Iterable<string>): Secret[] {
  const out: Secret[] = [];
  for (const name of names) {
    const value = env[name];
    if (value !== undefined && value !== '') out.push({ name, value });
  }
  return out;
}

/**
 * The contents of credential files, as secrets named after the key that names each file. A file
 * that cannot be read now is skipped: whatever needs it reports that.
 */
export function secretsFromFiles(files: Iterable<{ readonly key: string; readonly path: string }>): Secret[] {
  const out: Secret[] = [];
  for (const f of files) {
    try {
      const value = readFileSync(f.path, 'utf8');
      if (value.trim() !== '') out.push({ name: f.key, value });
    } catch {
      // unreadable or missing: nothing of it can be printed by way of fisk-ai either
    }
  }
  return out;
}

/**
 * `names` plus every variable of `env` whose value holds the value of one of them (8 or more
 * characters): the same token exported a second time under another name (`GITHUB_TOKEN` beside
 * `GH_PAT`, or `Bearer <token>` in a header variable) is the same credential, and withholding
 * only the first name would hand it to every child anyway. Sorted and deduplicated.
 */
export function withCredentialCopies(env: Readonly<Record<string, string | undefined>>, names: Iterable<string>): string[] {
  const all = new Set(names);
  const values = secretsFromEnv(env, all)
    .map((s) => s.value.trim())
    .filter((v) => v.length >= MIN_SECRET_LENGTH);
  if (values.length > 0) {
    for (const [name, value] of Object.entries(env)) {
      if (value !== undefined && !all.has(name) && values.some((v) => value.includes(v))) all.add(name);
    }
  }
  return [...all].sort();
}
