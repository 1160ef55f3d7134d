// The public face of core/net: everything outside this folder imports from here only.
export { guardedFetch, DEFAULT_USER_AGENT } from './guarded-fetch.ts';
export type { GuardedFetchOptions, FetchResult } from './guarded-fetch.ts';
export { FetchError } from './fetch-error.ts';
export type { FetchErrorCode, RedirectHop } from './fetch-error.ts';
export { classifyAddress, checkHostName, checkPublicUrl } from './address-policy.ts';
export type { AddressPolicyOptions, AddressVerdict, NameVerdict, UrlVerdict } from './address-policy.ts';
export { systemResolver, resolveHost } from './resolve.ts';
export type { Resolver, ResolvedAddress } from './resolve.ts';
export { closeIdleConnections } from './agents.ts';
