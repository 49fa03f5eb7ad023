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
    ['3fff::', 20], // documentation (RFC 9637)
    ['fc00::', 7], // unique-local
    ['fe80::', 10], // link-local
    ['fec0::', 10], // site-local (deprecated, still routed by some)
    ['ff00::', 8], // multicast
  ] as const)
    list.addSubnet(net, bits, 'ipv6');
  return list;
})();

/** The eight 16-bit groups of an IPv6 literal, its zone id (`%eth0`) dropped, whatever its spelling; else undefined. */
function ipv6Groups(address: string): number[] | undefined {
  const bare = address.split('%', 1)[0]!.toLowerCase();
  if (isIP(bare) !== 6) return undefined;
  // a trailing dotted quad (`::ffff:1.2.3.4`, `::1.2.3.4`) is the last two groups
  const text = bare.replace(
    /(\d+)\.(\d+)\.(\d+)\.(\d+)$/,
    (_, a: string, b: string, c: string, d: string) =>
      `${((Number(a) << 8) | Number(b)).toString(16)}:${((Number(c) << 8) | Number(d)).toString(16)}`,
  );
  const groupsOf = (part: string): number[] =>
    part === '' ? [] : part.split(':').map((h) => parseInt(h, 16));
  const [head = '', tail] = text.split('::');
  const left = groupsOf(head);
  if (tail === undefined) return left;
  const right = groupsOf(tail);
  return [...left, ...Array<number>(8 - left.length - right.length).fill(0), ...right];
}

/** The IPv4 address of two 16-bit groups. */
const ipv4Of = (hi: number, lo: number): string => `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;

/**
 * The IPv4 addresses an IPv6 one embeds, in any spelling: IPv4-compatible `::a.b.c.d` (so `::` and `::1` too),
 * IPv4-mapped `::ffff:a.b.c.d`, IPv4-translated `::ffff:0:a.b.c.d`, NAT64 `64:ff9b::a.b.c.d`, 6to4
 * `2002:aabb:ccdd::` and Teredo `2001:0:<server>::<client, inverted>`. A gateway, relay or tunnel carries traffic for
 * each of these to the IPv4 address inside.
 */
function embeddedIpv4(g: readonly number[]): string[] {
  const zero = (from: number, to: number): boolean => g.slice(from, to).every((x) => x === 0);
  const [g0 = 0, g1 = 0, g2 = 0, g3 = 0, g4 = 0, g5 = 0, g6 = 0, g7 = 0] = g;
  const embedded: string[] = [];
  if (zero(0, 5) && (g5 === 0 || g5 === 0xffff)) embedded.push(ipv4Of(g6, g7));
  if (zero(0, 4) && g4 === 0xffff && g5 === 0) embedded.push(ipv4Of(g6, g7));
  if (g0 === 0x64 && g1 === 0xff9b && zero(2, 6)) embedded.push(ipv4Of(g6, g7));
  if (g0 === 0x2002) embedded.push(ipv4Of(g1, g2));
  if (g0 === 0x2001 && g1 === 0) embedded.push(ipv4Of(g2, g3), ipv4Of(g6 ^ 0xffff, g7 ^ 0xffff));
  return embedded;
}

/**
 * Whether `address` (an IP literal) is outside the public internet, in any spelling of it: an IPv6 address embedding
 * a non-public IPv4 one is non-public. Anything that is not an IP counts as non-public.
 */
export function isNonPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return NON_PUBLIC.check(address, 'ipv4');
  const groups = family === 6 ? ipv6Groups(address) : undefined;
  if (groups === undefined || groups.length !== 8) return true;
  if (embeddedIpv4(groups).some((v4) => NON_PUBLIC.check(v4, 'ipv4'))) return true;
  return NON_PUBLIC.check(groups.map((x) => x.toString(16)).join(':'), 'ipv6');
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
