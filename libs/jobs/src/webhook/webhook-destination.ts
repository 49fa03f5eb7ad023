import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP } from 'node:net';

/** Which destination addresses a webhook may connect to. */
export interface WebhookDestinations {
  /**
   * Allow private (RFC 1918, unique-local, CGNAT), loopback, link-local and other non-public addresses (default
   * false). Leave it off for endpoints your tenants write: a URL naming `169.254.169.254` or `localhost` otherwise
   * reaches your own network.
   */
  readonly allowPrivate?: boolean;
  /**
   * Resolves a host name to addresses (default `dns.lookup` with `all: true`). Every address it answers is checked,
   * and the socket connects to one of exactly those, so a name re-pointed between check and connect cannot slip
   * through. Tests pass a fixed table.
   */
  readonly resolve?: (hostname: string) => Promise<readonly LookupAddress[]>;
}

/** Non-public ranges: what a tenant-written URL must not reach unless the app allows it. */
const NON_PUBLIC = ((): BlockList => {
  const list = new BlockList();
  for (const [net, bits] of [
    ['0.0.0.0', 8], // "this network"
    ['10.0.0.0', 8],
    ['100.64.0.0', 10], // carrier-grade NAT
    ['127.0.0.0', 8], // loopback
    ['169.254.0.0', 16], // link-local, cloud metadata
    ['172.16.0.0', 12],
    ['192.0.0.0', 24], // IETF protocol assignments
    ['192.0.2.0', 24], // documentation
    ['192.168.0.0', 16],
    ['198.18.0.0', 15], // benchmarking
    ['198.51.100.0', 24],
    ['203.0.113.0', 24],
    ['224.0.0.0', 4], // multicast
    ['240.0.0.0', 4], // reserved, broadcast
  ] as const)
    list.addSubnet(net, bits, 'ipv4');
  for (const [net, bits] of [
    ['::', 128], // unspecified
    ['::1', 128], // loopback
    ['64:ff9b:1::', 48], // local-use NAT64
    ['100::', 64], // discard
    ['2001:db8::', 32], // documentation
    ['fc00::', 7], // unique-local
    ['fe80::', 10], // link-local
    ['fec0::', 10], // site-local (deprecated, still routed by some)
    ['ff00::', 8], // multicast
  ] as const)
    list.addSubnet(net, bits, 'ipv6');
  return list;
})();

/** The IPv4 address an IPv6 one embeds (`::ffff:a.b.c.d`, NAT64 `64:ff9b::a.b.c.d`, `::a.b.c.d`), if any. */
function embeddedIpv4(address: string): string | undefined {
  const lower = address.toLowerCase();
  const dotted = /^(?:::ffff:|64:ff9b::|::)(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
  if (dotted !== null) return dotted[1];
  const hex = /^(?:::ffff:|64:ff9b::)([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(lower);
  if (hex === null) return undefined;
  const hi = parseInt(hex[1]!, 16);
  const lo = parseInt(hex[2]!, 16);
  return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
}

/** Whether `address` (an IP literal) is outside the public internet. Anything that is not an IP counts as non-public. */
export function isNonPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return NON_PUBLIC.check(address, 'ipv4');
  if (family !== 6) return true;
  const v4 = embeddedIpv4(address);
  if (v4 !== undefined) return NON_PUBLIC.check(v4, 'ipv4');
  return NON_PUBLIC.check(address, 'ipv6');
}

/** A destination refused: the reason names the host and the address, never a secret. */
export class DestinationRefused extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = 'DestinationRefused';
  }
}

/** `hostname` without the brackets a URL puts around an IPv6 literal. */
export function bareHost(hostname: string): string {
  return hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
}

/** Refuses `address` unless public or private addresses are allowed. */
export function checkAddress(host: string, address: string, options: WebhookDestinations): void {
  if (options.allowPrivate === true) return;
  if (isNonPublicAddress(address)) {
    throw new DestinationRefused(
      `${host === address ? 'address' : `host ${host} resolves to`} ${address}, which is private, loopback or link-local`,
    );
  }
}

function defaultResolve(hostname: string): Promise<readonly LookupAddress[]> {
  return new Promise((resolve, reject) => {
    dnsLookup(hostname, { all: true, verbatim: true }, (error, addresses) =>
      error ? reject(error) : resolve(addresses),
    );
  });
}

type LookupCallback = (
  error: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/**
 * The `lookup` a socket calls while it connects: resolves the host, refuses the connect when ANY answer is
 * non-public (a name answering one public and one private address is a rebinding attempt), and hands the socket only
 * the addresses it checked — so the address connected is an address checked, with no window between them.
 */
export function guardedLookup(options: WebhookDestinations) {
  const resolve = options.resolve ?? defaultResolve;
  return (hostname: string, opts: { all?: boolean; family?: number }, callback: LookupCallback) => {
    resolve(hostname).then(
      (addresses) => {
        try {
          if (addresses.length === 0)
            throw new DestinationRefused(`host ${hostname} has no address`);
          for (const a of addresses) checkAddress(hostname, a.address, options);
          const family = opts.family === 4 || opts.family === 6 ? opts.family : undefined;
          const usable =
            family === undefined ? addresses : addresses.filter((a) => a.family === family);
          if (usable.length === 0)
            throw new DestinationRefused(`host ${hostname} has no IPv${family} address`);
          if (opts.all === true) callback(null, [...usable]);
          else callback(null, usable[0]!.address, usable[0]!.family);
        } catch (error) {
          callback(error as NodeJS.ErrnoException, '', 0);
        }
      },
      (error: NodeJS.ErrnoException) => callback(error, '', 0),
    );
  };
}
