/**
 * Arguments shown as a shell would need them typed. An approval prompt that prints argv joined by
 * spaces lets a padded or look-alike value hide where one argument ends and the next begins; quoting
 * each argument, and spelling out every character a person cannot see, shows exactly what will run.
 */

// Characters that print as nothing or as plain space: controls, format characters (zero-width,
// bidirectional controls, soft hyphen), separators, spaces other than U+0020, fillers and
// variation selectors.
const INVISIBLE =
  /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\u00a0\u1680\u2000-\u200a\u202f\u205f\u3000\u115f\u1160\u3164\uffa0]|\p{Variation_Selector}|\u034f|\u17b4|\u17b5/u;
const INVISIBLE_ALL = new RegExp(INVISIBLE.source, 'gu');

// Safe to show bare: nothing a shell would split, expand or treat specially.
const BARE = /^[A-Za-z0-9_./:@%+,=-]+$/;

/** Whether `text` holds a character that prints as nothing or as a plain space. */
export function hasInvisible(text: string): boolean {
  return INVISIBLE.test(text);
}

function escapeFor(ch: string): string {
  switch (ch) {
    case '\n':
      return '\\n';
    case '\t':
      return '\\t';
    case '\r':
      return '\\r';
    default: {
      const cp = ch.codePointAt(0) ?? 0;
      return cp <= 0xff
        ? `\\x${cp.toString(16).padStart(2, '0')}`
        : cp <= 0xffff
          ? `\\u${cp.toString(16).padStart(4, '0')}`
          : `\\U${cp.toString(16).padStart(8, '0')}`;
    }
  }
}

/**
 * One argument quoted for a POSIX shell: bare when it holds only safe characters, in single quotes
 * otherwise, and as an ANSI-C `$'...'` string with escapes (`\n`, `\x1b`, `\u200b`) when it holds
 * anything invisible, so no character of it can hide. The empty argument is `''`.
 */
export function shellQuote(arg: string): string {
  if (arg !== '' && BARE.test(arg)) return arg;
  if (!hasInvisible(arg)) return `'${arg.replace(/'/g, `'\\''`)}'`;
  const body = arg.replace(/[\\']/g, (c) => `\\${c}`).replace(INVISIBLE_ALL, escapeFor);
  return `$'${body}'`;
}

/** A whole argument list, each quoted by `shellQuote`, joined by single spaces. */
export function shellJoin(argv: readonly string[]): string {
  return argv.map(shellQuote).join(' ');
}

/**
 * Text with every invisible character written as a `\uXXXX` escape (`\u{XXXXX}` past the BMP),
 * for values shown in JSON or prose where a shell quote does not fit.
 */
export function revealInvisible(text: string): string {
  return text.replace(INVISIBLE_ALL, (ch) => {
    const cp = ch.codePointAt(0) ?? 0;
    return cp <= 0xffff ? `\\u${cp.toString(16).padStart(4, '0')}` : `\\u{${cp.toString(16)}}`;
  });
}
