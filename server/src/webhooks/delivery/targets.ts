import dns from 'node:dns';
import type { LookupFunction } from 'node:net';
import net from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * Where a webhook may send (API.md, "Part 2 in detail", Webhooks: targets): every address a target's name resolves to
 * must be global unicast. The refused ranges are the contract's list; IPv4-mapped and NAT64 (64:ff9b::/96) IPv6
 * addresses are judged by the IPv4 address they carry. ipaddr.js parses every spelling (it is what Express trusts for
 * proxies too). The check runs at creation and in the socket's `lookup` at every connection, so the connection goes
 * to the address that was checked (a name whose DNS answer changed after creation is refused then).
 */

const REFUSED = [
  '0.0.0.0/8', '10.0.0.0/8', '100.64.0.0/10', '127.0.0.0/8', '169.254.0.0/16', '172.16.0.0/12', '192.0.0.0/24',
  '192.168.0.0/16', '198.18.0.0/15', '224.0.0.0/4', '240.0.0.0/4',
  '::/128', '::1/128', 'fc00::/7', 'fe80::/10', 'ff00::/8',
].map((cidr) => ipaddr.parseCIDR(cidr));

const NAT64 = ipaddr.parseCIDR('64:ff9b::/96');

/** Whether an address (text) is one a webhook may reach without `webhooks.allowPrivateTargets`. */
export function isGlobalAddress(text: string): boolean {
  if (!ipaddr.isValid(text)) return false;
  let address = ipaddr.parse(text);
  if (address.kind() === 'ipv6') {
    const six = address as ipaddr.IPv6;
    if (six.isIPv4MappedAddress()) address = six.toIPv4Address();
    else if (six.match(NAT64)) {
      const bytes = six.toByteArray();
      address = ipaddr.fromByteArray(bytes.slice(12));
    }
  }
  return !REFUSED.some(([range, bits]) => range.kind() === address.kind() && address.match(range, bits));
}

export class RefusedTarget extends Error {
  readonly code = 'EREFUSEDTARGET';
  constructor(host: string) {
    super(`refused target: ${host} is not a public address`);
  }
}

/** The `lookup` of a webhook's sockets: resolves as usual, then refuses unless every address is global unicast. */
export function checkedLookup(allowPrivate: boolean): LookupFunction {
  return (hostname, options, callback) => {
    dns.lookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, '', 0);
      const list = addresses as dns.LookupAddress[];
      if (list.length === 0) return callback(Object.assign(new Error(`${hostname} does not resolve`), { code: 'ENOTFOUND' }), '', 0);
      if (!allowPrivate && list.some((entry) => !isGlobalAddress(entry.address))) return callback(new RefusedTarget(hostname), '', 0);
      if ((options as dns.LookupOptions).all) return (callback as unknown as (e: null, a: dns.LookupAddress[]) => void)(null, list);
      callback(null, list[0]!.address, list[0]!.family);
    });
  };
}

/** The host of a URL as the socket sees it: IPv6 literals without their brackets. */
export function hostOf(url: URL): string {
  return url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
}

/**
 * Checks a target now (creation and every change of its URL): a literal address is judged as it is; a name must
 * resolve, and every address it resolves to must be global. Answers why not, or null when it may be used.
 */
export async function targetProblem(url: URL, allowPrivate: boolean): Promise<string | null> {
  const host = hostOf(url);
  if (net.isIP(host)) return allowPrivate || isGlobalAddress(host) ? null : `${host} is not a public address (loopback, private, link-local or reserved)`;
  try {
    const addresses = await dns.promises.lookup(host, { all: true });
    if (addresses.length === 0) return `${host} does not resolve`;
    if (!allowPrivate && addresses.some((entry) => !isGlobalAddress(entry.address))) return `${host} resolves to an address that is not public (loopback, private, link-local or reserved)`;
    return null;
  } catch {
    return `${host} does not resolve`;
  }
}
