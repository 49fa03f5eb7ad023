import type { LookupAddress } from 'node:dns';
import {
  bareHost,
  checkAddress,
  DestinationRefused,
  guardedLookup,
  isNonPublicAddress,
} from './webhook-destination';

/** A fixed resolver: nothing here resolves a real name, and nothing here opens a socket. */
const table =
  (entries: Record<string, readonly string[]>) =>
  (hostname: string): Promise<readonly LookupAddress[]> =>
    Promise.resolve(
      (entries[hostname] ?? []).map((address) => ({
        address,
        family: address.includes(':') ? 6 : 4,
      })),
    );

/** What the guarded lookup hands the socket for `hostname`: the addresses, or the error it refuses with. */
function lookUp(
  hostname: string,
  resolve: ReturnType<typeof table>,
  allowPrivate = false,
): Promise<{ error: Error | null; addresses: unknown }> {
  return new Promise((done) => {
    guardedLookup({ resolve, allowPrivate })(hostname, { all: true }, (error, addresses) =>
      done({ error, addresses }),
    );
  });
}

/** Every spelling of an address outside the public internet, IPv4 ones embedded in IPv6 ones included. */
const NON_PUBLIC_SPELLINGS = [
  // IPv4-compatible (::/96), dotted and in hex: the same address written two ways
  '::127.0.0.1',
  '::7f00:1',
  '0:0:0:0:0:0:7f00:1',
  '::a00:1',
  '::A9FE:A9FE',
  '::127.0.0.1%eth0',
  // IPv4-mapped, every spelling
  '::ffff:7f00:1',
  '::FFFF:7F00:1',
  '0:0:0:0:0:ffff:127.0.0.1',
  '0000:0000:0000:0000:0000:ffff:0a00:0001',
  '::ffff:a9fe:a9fe%eth0',
  // IPv4-translated (::ffff:0:0/96)
  '::ffff:0:7f00:1',
  '::ffff:0:10.0.0.1',
  // NAT64 well-known prefix, compressed or not
  '64:ff9b::7f00:1',
  '64:ff9b:0:0:0:0:7f00:1',
  '64:FF9B:0:0:0:0:192.168.1.1',
  '0064:ff9b:0000:0000:0000:0000:a9fe:a9fe',
  // 6to4 embedding a private IPv4 (a relay or a sit tunnel carries it there)
  '2002:7f00:1::',
  '2002:a00:1::1',
  '2002:C0A8:0101::1',
  '2002:a9fe:a9fe:0:0:0:0:1',
  // Teredo whose (inverted) client is loopback / private
  '2001:0:4136:e378:8000:63bf:80ff:fffe',
  '2001:0:4136:e378:8000:63bf:f5ff:fffe',
  // the plain IPv6 ranges, in other spellings
  '0:0:0:0:0:0:0:1',
  '0000::0001',
  '0::0',
  'FE80::1',
  'fe80::1%eth0',
  'FD12:3456::1',
  'FF02::1',
  '2001:DB8::1',
  '3fff::1',
];

/** Public addresses, in the same shapes, still allowed. */
const PUBLIC_SPELLINGS = [
  '::ffff:8.8.8.8',
  '::ffff:808:808',
  '64:ff9b::8.8.8.8',
  '64:ff9b:0:0:0:0:808:808',
  '2002:808:808::1',
  '2001:0:4136:e378:8000:63bf:f7f7:f7f7',
  '2606:4700:4700::1111',
  '2001:4860:4860:0:0:0:0:8888',
];

describe('webhook destinations: every spelling of a non-public address', () => {
  it('classifies each spelling the way its canonical form is classified', () => {
    expect(NON_PUBLIC_SPELLINGS.filter((a) => !isNonPublicAddress(a))).toEqual([]);
    expect(PUBLIC_SPELLINGS.filter((a) => isNonPublicAddress(a))).toEqual([]);
  });

  it('refuses an IPv6 literal URL embedding loopback (http://[::127.0.0.1]/ is [::7f00:1] once parsed)', () => {
    for (const url of [
      'http://[::127.0.0.1]:8080/hook',
      'http://[::ffff:0:127.0.0.1]:8080/hook',
      'http://[64:ff9b:0:0:0:0:10.0.0.1]:8080/hook',
      'http://[2002:a9fe:a9fe::1]:8080/hook',
    ]) {
      const host = bareHost(new URL(url).hostname);
      expect(() => checkAddress(host, host, {})).toThrow(DestinationRefused);
      expect(() => checkAddress(host, host, { allowPrivate: true })).not.toThrow();
    }
  });

  it('refuses a name resolving to any such spelling, before a socket is handed an address', async () => {
    for (const address of NON_PUBLIC_SPELLINGS) {
      const { error, addresses } = await lookUp(
        'hooks.partner.test',
        table({ 'hooks.partner.test': [address] }),
      );
      expect([address, error]).toEqual([address, expect.any(DestinationRefused)]);
      expect(addresses).toBe('');
    }
    const rebinding = table({ 'rebind.test': ['2606:4700:4700::1111', '::7f00:1'] });
    expect((await lookUp('rebind.test', rebinding)).error).toBeInstanceOf(DestinationRefused);
    const allowed = await lookUp('internal.test', table({ 'internal.test': ['::7f00:1'] }), true);
    expect(allowed).toEqual({ error: null, addresses: [{ address: '::7f00:1', family: 6 }] });
  });
});
