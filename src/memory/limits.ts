/**
 * Every memory limit in one place, so a backend, a tool and a bucket check cannot disagree.
 */

/** Longest legal key, in characters (keys are ASCII, so characters and runes agree). */
export const MAX_KEY_RUNES = 200;

/** Longest description after normalization, in Unicode code points. */
export const MAX_DESCRIPTION_RUNES = 500;

/** Largest body, in UTF-8 bytes (64 KiB). */
export const MAX_CONTENT_BYTES = 65_536;

/** Most memories one store holds; counted on create only, since an overwrite replaces a counted entry. */
export const MAX_ENTRIES = 1024;

/**
 * Largest serialized entry (frontmatter plus body). YAML may quote and escape every byte of a
 * description (up to four UTF-8 bytes per rune, some escaped twice over), so the header budget is
 * twice a generous 2000-byte description allowance plus 64 bytes of delimiters and field name.
 * A JetStream bucket whose values cannot hold this many bytes is refused at run start.
 */
export const MAX_ENTRY_BYTES = MAX_CONTENT_BYTES + 2 * 2000 + 64;

/** The limits as shown to people (`fisk info`). */
export function describeLimits(): string {
  return `${MAX_CONTENT_BYTES / 1024} KB per entry, ${MAX_ENTRIES} entries`;
}
