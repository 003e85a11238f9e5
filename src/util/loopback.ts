/**
 * Whether a host is this machine. Several gates ask it: "https unless this machine" for every
 * configured endpoint, and the DNS-rebinding guard of a loopback MCP server. The answer comes from a
 * parsed address, never from a string prefix: `127.attacker.example` and `127.0.0.1.nip.io` are names
 * that any resolver may point anywhere. One implementation serves every layer: the configuration's
 * URL checks, the telemetry collector check, and every loopback listener.
 */
import { isIPv4, isIPv6 } from 'node:net';

/**
 * True only for a literal loopback address or the name `localhost`: an IPv4 address in 127.0.0.0/8,
 * the IPv6 address ::1 in any spelling (bracketed or not), or an IPv4-mapped IPv6 form of a 127.x
 * address. `localhost.`, the same name written fully qualified, is loopback too (RFC 6761 reserves
 * it for this machine). Case-insensitive. Every other name is false, including names that merely
 * begin with `127.` or `localhost` and names under `localhost.`, which this check does not resolve.
 */
export function isLoopbackHost(host: string): boolean {
  let h = host.trim().toLowerCase();
  if (h.startsWith('[') && h.endsWith(']')) h = h.slice(1, -1);
  if (h === 'localhost' || h === 'localhost.') return true;
  if (isIPv4(h)) return Number(h.split('.')[0]) === 127;
  if (isIPv6(h)) return isLoopbackV6(h);
  return false;
}

/**
 * Why a request reaching a listener bound to a loopback address must be refused, or `undefined`
 * when it may be answered. `Host` must name this machine, so a page whose name was rebound to
 * 127.0.0.1 cannot reach the listener; `Origin`, when a browser sends one, must be a loopback page,
 * so another site open in the same browser cannot. Both are parsed, never compared by prefix.
 */
export function loopbackRequestRefusal(host: string | undefined, origin: string | undefined): string | undefined {
  const name = hostName(host);
  if (name === undefined || !isLoopbackHost(name)) return 'forbidden: this server answers only to a loopback Host';
  if (origin !== undefined && !isLoopbackHost(originHost(origin))) return 'forbidden: requests from a non-loopback web origin are refused';
  return undefined;
}

function hostName(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  if (header.startsWith('[')) return header.slice(0, header.indexOf(']') + 1);
  const colon = header.lastIndexOf(':');
  return (colon < 0 ? header : header.slice(0, colon)).toLowerCase();
}

function originHost(origin: string): string {
  try {
    return new URL(origin).hostname.toLowerCase();
  } catch {
    return '';
  }
}

/** Whether a parsed URL's host is this machine (see `isLoopbackHost`). */
export function isLoopbackUrl(url: URL): boolean {
  return isLoopbackHost(url.hostname);
}

function isLoopbackV6(address: string): boolean {
  const groups = expandV6(address);
  if (groups === undefined) return false;
  const zeroUpTo = (n: number): boolean => groups.slice(0, n).every((g) => g === 0);
  if (zeroUpTo(7) && groups[7] === 1) return true;
  // ::ffff:127.x.y.z, the IPv4-mapped spelling of an IPv4 loopback address
  return zeroUpTo(5) && groups[5] === 0xffff && (groups[6] ?? 0) >> 8 === 127;
}

/** The eight 16-bit groups of a valid IPv6 address (zone removed, trailing dotted quad folded in). */
function expandV6(address: string): number[] | undefined {
  let a = address.split('%')[0] ?? '';
  const quad = /(\d+\.\d+\.\d+\.\d+)$/u.exec(a);
  if (quad?.[1] !== undefined) {
    const o = quad[1].split('.').map(Number);
    const hi = ((o[0] ?? 0) << 8) | (o[1] ?? 0);
    const lo = ((o[2] ?? 0) << 8) | (o[3] ?? 0);
    a = `${a.slice(0, quad.index)}${hi.toString(16)}:${lo.toString(16)}`;
  }
  const halves = a.split('::');
  if (halves.length > 2) return undefined;
  const part = (s: string | undefined): number[] => (s === undefined || s === '' ? [] : s.split(':').map((g) => parseInt(g, 16)));
  const head = part(halves[0]);
  const tail = part(halves[1]);
  const fill = halves.length === 2 ? 8 - head.length - tail.length : 0;
  const groups = [...head, ...new Array<number>(Math.max(0, fill)).fill(0), ...tail];
  return groups.length === 8 && groups.every((g) => Number.isInteger(g) && g >= 0 && g <= 0xffff) ? groups : undefined;
}
