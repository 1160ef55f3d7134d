import dns from 'node:dns';
import { isIP } from 'node:net';
import { checkHostName, classifyAddress } from './address-policy.ts';
import type { AddressPolicyOptions } from './address-policy.ts';
import { FetchError } from './fetch-error.ts';

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

export type Resolver = (host: string) => Promise<ResolvedAddress[]>;

export const systemResolver: Resolver = (host) =>
  dns.promises.lookup(host, { all: true, verbatim: true }) as Promise<ResolvedAddress[]>;

/**
 * Turns a host into the addresses the connection may use, or throws. A literal is judged
 * as is (no lookup); a name must pass the name policy first, then EVERY answer must be
 * allowed: a mixed public + private answer is refused, because the socket layer may pick
 * any of them (happy eyeballs) and an attacker controls the order.
 */
export async function resolveHost(
  host: string,
  literal: 0 | 4 | 6,
  opts: AddressPolicyOptions,
  resolver: Resolver,
): Promise<ResolvedAddress[]> {
  if (literal !== 0) {
    const verdict = classifyAddress(host, opts);
    if (!verdict.allowed) throw new FetchError('blocked_address', `the address ${host} is not public`);
    return [{ address: host, family: literal }];
  }
  const name = checkHostName(host, opts);
  if (!name.allowed) throw new FetchError('blocked_address', name.reason);

  let answers: ResolvedAddress[];
  try {
    answers = await resolver(host);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException)?.code;
    throw new FetchError('dns', `could not resolve ${host}${code ? ` (${code})` : ''}`, { cause: err });
  }
  if (!Array.isArray(answers) || answers.length === 0) {
    throw new FetchError('dns', `could not resolve ${host} (no addresses)`);
  }
  const checked: ResolvedAddress[] = new Array(answers.length);
  for (let i = 0; i < answers.length; i++) {
    const address = String(answers[i]?.address);
    // The family comes from the address itself: Node's connect trusts the pair we hand it.
    const family = isIP(address);
    if (family === 0 || !classifyAddress(address, opts).allowed) {
      // The message names no address: whoever reads it (a webhook's admin, a check's reader)
      // must not learn what an internal name resolves to. Operators get it at debug level.
      const refused = new FetchError('blocked_address', `${host} resolves to a non-public address`);
      refused.refusedAddress = address;
      throw refused;
    }
    checked[i] = { address, family: family as 4 | 6 };
  }
  return checked;
}
