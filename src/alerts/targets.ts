// Where a webhook may go: an https URL (http:// only when allowed) without credentials, whose
// host is and resolves to public addresses only (OWASP's SSRF rules: loopback, private,
// link-local, unique-local, multicast, unspecified, reserved and the cloud metadata address are
// refused). The check resolves the name once and hands back the address checked, so that the
// connection goes to it and not to a second, different answer.
import { lookup } from 'node:dns/promises';
import ipaddr from 'ipaddr.js';
import { MAX_URL_LENGTH } from './model.js';

export interface TargetPolicy {
  allowHttp: boolean;
  allowPrivate: boolean;
}

/** Said with a refused private target: the setting that lets a development or test server reach one. */
const PRIVATE_HINT = 'private and loopback targets are accepted only where the operator sets WEBHOOK_ALLOW_PRIVATE=true';

/** The ranges ipaddr.js names that a public target is in; every other range is refused. */
const PUBLIC_RANGES = new Set(['unicast']);

/** Why an address may not be a target, or null when it is public (or private ones are allowed). */
export function refusedAddress(address: string, policy: Pick<TargetPolicy, 'allowPrivate'>): string | null {
  if (!ipaddr.isValid(address)) return `"${address}" is not an IP address`;
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  const range = parsed.range();
  if (PUBLIC_RANGES.has(range) || policy.allowPrivate) return null;
  return `it points to a ${range} address (${parsed.toString()}), which webhooks may not reach (${PRIVATE_HINT})`;
}

/** Problems with a URL as written (before any lookup): null when it may be a target. */
export function urlProblem(text: string, policy: TargetPolicy): string | null {
  const parsed = parseTarget(text, policy);
  return typeof parsed === 'string' ? parsed : null;
}

/** The URL as written, parsed (it may be a target), or its problem (before any lookup). */
function parseTarget(text: string, policy: TargetPolicy): URL | string {
  if (text.length > MAX_URL_LENGTH) return `must be at most ${MAX_URL_LENGTH} characters`;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return 'must be an absolute https:// URL';
  }
  if (url.protocol === 'http:' && !policy.allowHttp) return 'must be an https:// URL (http:// is accepted only where the operator sets WEBHOOK_ALLOW_HTTP=true)';
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'must be an https:// URL';
  if (url.username !== '' || url.password !== '') return 'must not carry credentials (user:password@)';
  if (url.hash !== '') return 'must not have a #fragment';
  const host = hostOf(url);
  if (host === 'localhost' || host.endsWith('.localhost')) return policy.allowPrivate ? url : `points to localhost, which webhooks may not reach (${PRIVATE_HINT})`;
  return ipaddr.isValid(host) ? (refusedAddress(host, policy) ?? url) : url;
}

/** The URL's host without IPv6 brackets, lower case. */
const hostOf = (url: URL): string => url.hostname.replace(/^\[|\]$/g, '').toLowerCase();

export type Resolver = (host: string) => Promise<{ address: string; family: number }[]>;
export const systemResolver: Resolver = (host) => lookup(host, { all: true, verbatim: true });

/** A target checked for one attempt: the URL, and the address to connect to. */
export interface CheckedTarget {
  url: URL;
  address: string;
  family: number;
}

export class TargetRefused extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'TargetRefused';
  }
}

/**
 * Resolves the URL's host and checks every address it resolves to; throws TargetRefused when
 * the URL or any address may not be reached. Returns the first address, to connect to.
 */
export async function checkTarget(text: string, policy: TargetPolicy, resolve: Resolver = systemResolver): Promise<CheckedTarget> {
  const url = parseTarget(text, policy);
  if (typeof url === 'string') throw new TargetRefused(`the URL ${url}`);
  const host = hostOf(url);
  let addresses: { address: string; family: number }[];
  if (ipaddr.isValid(host)) addresses = [{ address: host, family: host.includes(':') ? 6 : 4 }];
  else {
    try {
      addresses = await resolve(host);
    } catch {
      throw new TargetRefused(`the host "${host.slice(0, 100)}" does not resolve`);
    }
  }
  if (addresses.length === 0) throw new TargetRefused(`the host "${host.slice(0, 100)}" does not resolve`);
  for (const { address } of addresses) {
    const refused = refusedAddress(address, policy);
    if (refused !== null) throw new TargetRefused(`the host "${host.slice(0, 100)}" resolves to an address webhooks may not reach: ${refused}`);
  }
  return { url, address: addresses[0].address, family: addresses[0].family };
}
