import ipaddr from 'ipaddr.js';
import { isIP } from 'node:net';
import { readTarget } from './target-url.ts';

export interface AddressPolicyOptions {
  /** ALLOW_PRIVATE_NETWORK=1: opens loopback and private ranges only, never the rest. */
  allowPrivateNetwork: boolean;
}

export interface AddressVerdict {
  allowed: boolean;
  /** ipaddr.js range name ('unicast', 'private', 'linkLocal', ...) or 'invalid'. */
  range: string;
}

export type NameVerdict = { allowed: true } | { allowed: false; reason: string };

export type UrlVerdict = { ok: true } | { ok: false; reason: string };

/** The ranges ALLOW_PRIVATE_NETWORK opens; everything else that is not unicast stays shut. */
const PRIVATE_RANGES: ReadonlySet<string> = new Set(['loopback', 'private', 'uniqueLocal']);

/**
 * ::/96 (IPv4-compatible, deprecated by RFC 4291) is 'unicast' to ipaddr.js, yet ::7f00:1 is
 * 127.0.0.1 in disguise for any stack that still honours the old tunnelling rules. It is
 * stricter than the ipaddr.js rule of docs/api.md#address-guard, on purpose; nobody publishes a
 * service there.
 */
const IPV4_COMPATIBLE = ipaddr.IPv6.parseCIDR('::/96');

/**
 * Classifies the exact address a socket would dial. Only canonical literals are accepted
 * (net.isIP): ipaddr.js would also read '0177.0.0.1' or '127.1', but the socket layer would
 * treat those as names, so judging them here would judge something other than what is dialled.
 */
export function classifyAddress(ip: string, opts: AddressPolicyOptions): AddressVerdict {
  if (isIP(ip) === 0) return { allowed: false, range: 'invalid' };
  let addr: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    addr = ipaddr.parse(ip);
  } catch {
    return { allowed: false, range: 'invalid' };
  }
  if (addr.kind() === 'ipv6') {
    const v6 = addr as ipaddr.IPv6;
    // The socket sends ::ffff:a.b.c.d to a.b.c.d, so that is the address to judge.
    if (v6.isIPv4MappedAddress()) addr = v6.toIPv4Address();
    else if (v6.range() === 'unicast' && v6.match(IPV4_COMPATIBLE)) return { allowed: false, range: 'ipv4Compatible' };
  }
  const range = addr.range();
  if (range === 'unicast') return { allowed: true, range };
  return { allowed: opts.allowPrivateNetwork && PRIVATE_RANGES.has(range), range };
}

/**
 * Names that only mean something inside a network are refused before any lookup, so a
 * resolver (or /etc/hosts) can never turn them into an internal address. With
 * allowPrivateNetwork, docs/api.md#address-guard opens localhost, *.local, *.internal and
 * single labels; *.localhost stays shut because it is not on that list.
 */
export function checkHostName(name: string, opts: AddressPolicyOptions): NameVerdict {
  let host = name.toLowerCase();
  if (host.endsWith('.')) host = host.slice(0, -1);
  if (host === '' || host.startsWith('.')) return { allowed: false, reason: `the host name "${name}" is not valid` };
  if (host.endsWith('.localhost')) return { allowed: false, reason: `the host ${name} is a local name` };
  const local =
    host === 'localhost' || host.endsWith('.local') || host.endsWith('.internal') || !host.includes('.');
  if (local && !opts.allowPrivateNetwork) return { allowed: false, reason: `the host ${name} is a local name` };
  return { allowed: true };
}

/**
 * Creation-time check of a URL (a webhook endpoint) without DNS: the scheme, IP literals and
 * local names. The address a name resolves to is checked again at every delivery.
 */
export function checkPublicUrl(url: string, opts: { allowPrivateNetwork: boolean; httpsOnly?: boolean }): UrlVerdict {
  const read = readTarget(url, undefined, opts.httpsOnly ?? true);
  if (!read.ok) return { ok: false, reason: read.reason };
  const { host, literal } = read.target;
  if (literal !== 0) {
    const verdict = classifyAddress(host, opts);
    return verdict.allowed ? { ok: true } : { ok: false, reason: `the address ${host} is not public (${verdict.range})` };
  }
  const name = checkHostName(host, opts);
  return name.allowed ? { ok: true } : { ok: false, reason: name.reason };
}
