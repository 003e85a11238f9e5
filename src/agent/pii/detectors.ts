/**
 * What the PII guard looks for. Each detector finds spans by pattern and, where the format has one,
 * confirms them with its checksum (Luhn for cards, mod 97 for IBANs, the SSA rules for SSNs), so
 * technical text (UUIDs, hashes, version numbers, timestamps) is left alone. Written here rather
 * than taken from a package: the maintained libraries on npm either need Node 22 or ship hundreds
 * of loose patterns that redact identifiers in ordinary technical documentation, and none covers
 * the token formats (GitHub, Slack, Stripe, AWS, model provider keys, JWT) with checksums on the personal ones.
 */
import { isIPv6 } from 'node:net';

/** The closed set of things the guard redacts, each with its own marker. */
export const PII_KINDS = [
  'email',
  'phone',
  'credit_card',
  'iban',
  'ssn',
  'ip_address',
  'aws_key',
  'github_token',
  'slack_token',
  'stripe_key',
  'api_key',
  'jwt',
  'private_key',
  'url_credential',
  'bearer_token',
] as const;
export type PiiKind = (typeof PII_KINDS)[number];

/** The marker that replaces a hit: `[EMAIL-REDACTED]`. */
export function markerFor(kind: PiiKind): string {
  return `[${kind.toUpperCase().replace(/_/g, '-')}-REDACTED]`;
}

/** One hit: the half-open span `[start, end)` of `text` to replace. */
export interface Finding {
  readonly kind: PiiKind;
  readonly start: number;
  readonly end: number;
}

/** A detector: a pattern, the capture group to redact (0 for the whole match) and a confirmation. */
export interface Detector {
  readonly kind: PiiKind;
  readonly pattern: RegExp;
  readonly group?: number;
  readonly confirm?: (match: string, text: string, index: number) => boolean;
}

function digits(s: string): string {
  return s.replace(/\D/g, '');
}

/** The Luhn checksum every payment card number satisfies. */
export function luhnValid(number: string): boolean {
  const d = digits(number);
  if (d.length < 12) return false;
  let sum = 0;
  for (let i = 0; i < d.length; i++) {
    let n = d.charCodeAt(d.length - 1 - i) - 48;
    if (i % 2 === 1) {
      n *= 2;
      if (n > 9) n -= 9;
    }
    sum += n;
  }
  return sum % 10 === 0;
}

const CARD_PREFIX = /^(?:4|5[1-5]|2[2-7]|3[47]|3[068]|35|6(?:011|5|4[4-9]))/;

function cardValid(match: string): boolean {
  const d = digits(match);
  return d.length >= 13 && d.length <= 19 && CARD_PREFIX.test(d) && luhnValid(d) && !/^(\d)\1+$/.test(d);
}

/** ISO 13616 mod-97 check over the rearranged IBAN. */
export function ibanValid(candidate: string): boolean {
  const s = candidate.replace(/\s+/g, '').toUpperCase();
  if (s.length < 15 || s.length > 34 || !/^[A-Z]{2}\d{2}[A-Z0-9]+$/.test(s)) return false;
  const rearranged = s.slice(4) + s.slice(0, 4);
  let rem = 0;
  for (const ch of rearranged) {
    const code = ch.charCodeAt(0);
    const value = code >= 65 ? String(code - 55) : ch;
    for (const c of value) rem = (rem * 10 + (c.charCodeAt(0) - 48)) % 97;
  }
  return rem === 1;
}

function ssnValid(match: string): boolean {
  const [area, group, serial] = match.split('-');
  if (area === undefined || group === undefined || serial === undefined) return false;
  return area !== '000' && area !== '666' && !area.startsWith('9') && group !== '00' && serial !== '0000';
}

function ipv4Valid(match: string, text: string, index: number): boolean {
  const octets = match.split('.').map(Number);
  if (octets.some((o) => o > 255)) return false;
  // a leading zero ("01.02.03.04") is a version or a date, not an address
  if (match.split('.').some((o) => o.length > 1 && o.startsWith('0'))) return false;
  // "v1.2.3.4" and "version 1.2.3.4" are versions
  const before = text.slice(Math.max(0, index - 8), index);
  if (/(?:^|[^A-Za-z])v$/i.test(before) || /version\s*$/i.test(before)) return false;
  const [a, b] = octets;
  // loopback, unspecified, broadcast and netmasks identify nobody
  if (a === 127 || a === 0 || match === '255.255.255.255' || (a === 255 && b === 255)) return false;
  return true;
}

function ipv6Valid(match: string): boolean {
  if (!isIPv6(match)) return false;
  if (match === '::' || match === '::1') return false;
  // "a::b" style scope operators in code have fewer than three hex groups
  return match.split(':').filter((g) => g !== '').length >= 3;
}

function phoneValid(match: string): boolean {
  const d = digits(match);
  return d.length >= 10 && d.length <= 15 && !/^(\d)\1+$/.test(d);
}

function bearerValid(match: string): boolean {
  const token = match.replace(/^bearer\s+/i, '');
  return /\d/.test(token) || token.length >= 24;
}

/** A provider key mixes letters and digits; a long hyphenated word after `sk-` does not. */
function apiKeyValid(match: string): boolean {
  const body = match.slice(3);
  return /\d/.test(body) && /[A-Za-z]/.test(body);
}

const NOT_WORD_BEFORE = '(?<![A-Za-z0-9_.+-])';
const NOT_WORD_AFTER = '(?![A-Za-z0-9_])';

/**
 * The detectors, most specific first: when two spans overlap the earlier detector's hit wins, so a
 * token inside a URL is redacted as the token rather than as part of something looser.
 */
export const DETECTORS: readonly Detector[] = [
  {
    kind: 'private_key',
    pattern:
      /-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----(?:[\s\S]*?-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|[\s\S]*$)/g,
  },
  { kind: 'jwt', pattern: /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*/g },
  { kind: 'github_token', pattern: /\b(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})\b/g },
  { kind: 'slack_token', pattern: /\bxox[abposr]-[A-Za-z0-9-]{10,}|https:\/\/hooks\.slack\.com\/services\/[A-Za-z0-9/_-]+/g },
  { kind: 'stripe_key', pattern: /\b(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,}\b|\bwhsec_[A-Za-z0-9]{16,}\b/g },
  // model provider keys: Anthropic's sk-ant-..., OpenAI's sk-..., sk-proj-..., sk-svcacct-...
  { kind: 'api_key', pattern: /(?<![A-Za-z0-9_-])sk-ant-[A-Za-z0-9_-]{20,}/g },
  { kind: 'api_key', pattern: /(?<![A-Za-z0-9_-])sk-[A-Za-z0-9_-]{20,}/g, confirm: apiKeyValid },
  { kind: 'aws_key', pattern: /\b(?:AKIA|ASIA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA)[A-Z0-9]{16}\b/g },
  {
    kind: 'aws_key',
    pattern: /\baws_secret_access_key\s*[=:]\s*["']?([A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])/gi,
    group: 1,
  },
  { kind: 'url_credential', pattern: /\b[a-z][a-z0-9+.-]*:\/\/[^\s/:@]+:([^\s/@]+)@/gi, group: 1 },
  {
    kind: 'url_credential',
    pattern:
      /[?&#](?:access_token|id_token|refresh_token|token|api_key|apikey|api-key|key|auth|bearer|password|passwd|secret|client_secret|sig|signature|x-amz-signature)=([^&\s#"'<>]+)/gi,
    group: 1,
  },
  { kind: 'bearer_token', pattern: /\bbearer\s+[A-Za-z0-9._~+/-]{16,}=*/gi, confirm: bearerValid },
  {
    kind: 'email',
    pattern: /\b[A-Za-z0-9._%+-]+@[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*\.[A-Za-z]{2,}\b/g,
  },
  {
    kind: 'iban',
    pattern: new RegExp(`${NOT_WORD_BEFORE}[A-Z]{2}\\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,4})?${NOT_WORD_AFTER}`, 'g'),
    confirm: ibanValid,
  },
  {
    kind: 'credit_card',
    pattern: new RegExp(`${NOT_WORD_BEFORE}\\d(?:[ -]?\\d){12,18}${NOT_WORD_AFTER}`, 'g'),
    confirm: cardValid,
  },
  { kind: 'ssn', pattern: new RegExp(`${NOT_WORD_BEFORE}\\d{3}-\\d{2}-\\d{4}${NOT_WORD_AFTER}`, 'g'), confirm: ssnValid },
  {
    kind: 'phone',
    pattern: new RegExp(
      `${NOT_WORD_BEFORE}(?:\\+\\d{1,3}[ .-]?(?:\\(\\d{1,4}\\)[ .-]?)?\\d{1,4}(?:[ .-]\\d{2,4}){1,4}|\\(\\d{3}\\) ?\\d{3}[ .-]\\d{4}|\\d{3}([.-])\\d{3}\\1\\d{4})${NOT_WORD_AFTER}`,
      'g',
    ),
    confirm: phoneValid,
  },
  {
    kind: 'ip_address',
    pattern: /(?<![\w.:-])(?:\d{1,3}\.){3}\d{1,3}(?![\w-]|\.\d)/g,
    confirm: ipv4Valid,
  },
  {
    kind: 'ip_address',
    pattern: /(?<![\w:.])(?:[0-9A-Fa-f]{0,4}:){2,7}[0-9A-Fa-f]{0,4}(?![\w:])/g,
    confirm: ipv6Valid,
  },
];
