// Where a webhook may go: an https URL (http:// only when allowed) without credentials, whose
// host is and resolves to public addresses only (OWASP's SSRF rules: loopback, private,
// link-local, unique-local, multicast, unspecified, reserved and the cloud metadata address are
// refused). Creation and every delivery check the URL as written with the one function below
// (its scheme, its address if it is one, its name if only a private network answers it or it
// spells an address); a delivery then checks every address the name resolves to. It resolves the
// name once and hands back the address checked, so that the connection goes to it and not to a
// second, different answer. A refusal says why in words and never names an address a lookup gave.
import { lookup } from 'node:dns/promises';
import ipaddr from 'ipaddr.js';
import { MAX_URL_LENGTH } from './model.js';

export interface TargetPolicy {
  allowHttp: boolean;
  allowPrivate: boolean;
}

/** Said with a refused private target: the setting that lets a development or test server reach one. */
const PRIVATE_HINT =
  'private and loopback targets are accepted only where the operator sets WEBHOOK_ALLOW_PRIVATE=true';

/** The ranges ipaddr.js names that a public target is in; every other range is refused. */
const PUBLIC_RANGES = new Set(['unicast']);
/**
 * IPv6's global unicast block (2000::/3): a public IPv6 target is in it (::a.b.c.d, the old IPv4-compatible form, is
 * not).
 */
const GLOBAL_UNICAST_V6: [ipaddr.IPv6, number] = [ipaddr.IPv6.parse('2000::'), 3];

/** ipaddr.js's range names as words; any other range is "reserved". */
const RANGE_WORDS: Readonly<Record<string, string>> = {
  loopback: 'loopback',
  private: 'private',
  linkLocal: 'link-local',
  uniqueLocal: 'unique-local',
  multicast: 'multicast',
  unspecified: 'unspecified',
  broadcast: 'broadcast',
  carrierGradeNat: 'shared (carrier-grade NAT)',
};

/**
 * Names only a private network answers, and their subdomains: localhost (RFC 6761), local (mDNS,
 * RFC 6762), localdomain (the hosts file's), internal (reserved for private use; the clouds'
 * metadata.google.internal and *.ec2.internal), home.arpa (RFC 8375).
 */
const PRIVATE_SUFFIXES = ['localhost', 'local', 'localdomain', 'internal', 'home.arpa'];

/**
 * Wildcard DNS services: any name under them resolves to the address it spells, in many spellings (dotted, dashed, hex,
 * IPv6).
 */
const ADDRESS_SPELLING_DOMAINS = ['nip.io', 'sslip.io', 'xip.io', 'traefik.me', 'localtest.me', 'lvh.me', 'vcap.me'];

/** An IPv4 address spelled in a name: four dotted labels, or four numbers joined by dashes inside a label. */
const DOTTED_V4 = /(?:^|\.)(\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3})(?:\.|$)/;
const DASHED_V4 = /(?:^|[.-])(\d{1,3}-\d{1,3}-\d{1,3}-\d{1,3})(?:[.-]|$)/;

const under = (host: string, domain: string): boolean => host === domain || host.endsWith(`.${domain}`);

/**
 * What kind of address an address that may not be a target is (in words, without the address), or null when it is
 * public (or private ones are allowed).
 */
function refusedAddress(address: string, policy: Pick<TargetPolicy, 'allowPrivate'>): string | null {
  if (!ipaddr.isValid(address)) return 'something that is not an IP address';
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress())
    parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  const range = parsed.range();
  const isPublic =
    PUBLIC_RANGES.has(range) && (parsed.kind() === 'ipv4' || (parsed as ipaddr.IPv6).match(GLOBAL_UNICAST_V6));
  if (isPublic || policy.allowPrivate) return null;
  return `a ${RANGE_WORDS[range] ?? 'reserved'} address`;
}

/** What kind of name a host name (lower case, without its final dot) that may not be a target is, or null. */
function refusedName(host: string): string | null {
  if (PRIVATE_SUFFIXES.some((suffix) => under(host, suffix))) return 'a name only a private network answers';
  if (!host.includes('.')) return 'a name without a domain, which only a private network answers';
  if (ADDRESS_SPELLING_DOMAINS.some((domain) => under(host, domain)))
    return 'a name of a wildcard DNS service (it resolves to any address it spells)';
  for (const spelled of [DOTTED_V4.exec(host)?.[1], DASHED_V4.exec(host)?.[1]?.replaceAll('-', '.')]) {
    if (
      spelled !== undefined &&
      ipaddr.IPv4.isValidFourPartDecimal(spelled) &&
      refusedAddress(spelled, { allowPrivate: false }) !== null
    ) {
      return 'a name that spells an address webhooks may not reach';
    }
  }
  return null;
}

/** The check at creation: problems with a URL as written (before any lookup), null when it may be a target. */
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
  if (url.protocol === 'http:' && !policy.allowHttp)
    return 'must be an https:// URL (http:// is accepted only where the operator sets WEBHOOK_ALLOW_HTTP=true)';
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'must be an https:// URL';
  if (url.username !== '' || url.password !== '') return 'must not carry credentials (user:password@)';
  if (url.hash !== '') return 'must not have a #fragment';
  if (policy.allowPrivate) return url;
  const host = hostOf(url);
  const refused = ipaddr.isValid(host) ? refusedAddress(host, policy) : refusedName(host.replace(/\.+$/, ''));
  return refused === null ? url : `must point to a public host, not to ${refused} (${PRIVATE_HINT})`;
}

/** The URL's host without IPv6 brackets, lower case. */
const hostOf = (url: URL): string => url.hostname.replace(/^\[|\]$/g, '').toLowerCase();

export type Resolver = (host: string) => Promise<{ address: string; family: number }[]>;
export const systemResolver: Resolver = (host) => lookup(host, { all: true, verbatim: true });

/** A target checked for one attempt: the URL, and the address to connect to. */
interface CheckedTarget {
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
 * The check of every delivery: the URL as written (urlProblem, as at creation), then its host
 * resolved and every address it resolves to checked; throws TargetRefused when the URL or any
 * address may not be reached. Returns the first address, to connect to.
 */
export async function checkTarget(
  text: string,
  policy: TargetPolicy,
  resolve: Resolver = systemResolver,
): Promise<CheckedTarget> {
  const url = parseTarget(text, policy);
  if (typeof url === 'string') throw new TargetRefused(`the URL ${url}`);
  const host = hostOf(url);
  const named = `the host "${host.slice(0, 100)}"`;
  let addresses: { address: string; family: number }[];
  if (ipaddr.isValid(host)) addresses = [{ address: host, family: host.includes(':') ? 6 : 4 }];
  else {
    try {
      addresses = await resolve(host);
    } catch {
      throw new TargetRefused(`${named} does not resolve`);
    }
  }
  if (addresses.length === 0) throw new TargetRefused(`${named} does not resolve`);
  for (const { address } of addresses) {
    const refused = refusedAddress(address, policy);
    if (refused !== null) throw new TargetRefused(`${named} resolves to ${refused}, which webhooks may not reach`);
  }
  return { url, address: addresses[0].address, family: addresses[0].family };
}
