/**
 * Whether a collector address is this machine, decided on the parsed address: `127.attacker.example`
 * starts with `127.` and is somebody else's host.
 */
import { BlockList, isIP } from 'node:net';

const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');

/**
 * True for `localhost`, any address in 127.0.0.0/8, `::1`, and an IPv4-mapped IPv6 form of a
 * 127.0.0.0/8 address. Takes a host as `URL.hostname` gives it (IPv6 in brackets or bare).
 */
export function isLoopbackHost(hostname: string): boolean {
  let host = hostname.trim().toLowerCase();
  if (host.startsWith('[') && host.endsWith(']')) host = host.slice(1, -1);
  if (host.endsWith('.')) host = host.slice(0, -1);
  if (host === 'localhost') return true;
  switch (isIP(host)) {
    case 4:
      return LOOPBACK.check(host, 'ipv4');
    case 6: {
      if (LOOPBACK.check(host, 'ipv6')) return true;
      const mapped = ipv4Mapped(host);
      return mapped !== undefined && LOOPBACK.check(mapped, 'ipv4');
    }
    default:
      return false;
  }
}

/** The IPv4 address inside `::ffff:a.b.c.d` or `::ffff:XXXX:XXXX`, if the address is that form. */
function ipv4Mapped(host: string): string | undefined {
  const m = /^(?:0{0,4}:){0,5}:?ffff:(.+)$/.exec(host);
  if (m === null || m[1] === undefined) return undefined;
  const tail = m[1];
  if (isIP(tail) === 4) return tail;
  const hex = /^([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(tail);
  if (hex === null || hex[1] === undefined || hex[2] === undefined) return undefined;
  const hi = parseInt(hex[1], 16);
  const lo = parseInt(hex[2], 16);
  return `${hi >> 8}.${hi & 0xff}.${lo >> 8}.${lo & 0xff}`;
}
