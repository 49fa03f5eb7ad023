import { execFile } from 'node:child_process';
import { connect, createServer, type Server, Socket } from 'node:net';
import { promisify } from 'node:util';
import { configuredHosts, isLoopback, takeRefusals } from './connect-jail';

/** A resolver answering `address` for every name, in the shape asked (`all`: a list, as Node 20 asks by default). */
const resolvesTo =
  (address: string) =>
  (
    _host: string,
    options: { all?: boolean },
    callback: (
      error: null,
      address: string | { address: string; family: number }[],
      family?: number,
    ) => void,
  ): void =>
    options.all ? callback(null, [{ address, family: 4 }]) : callback(null, address, 4);

/** The error a connect ended with, or 'connected'. */
function outcome(socket: Socket): Promise<string> {
  return new Promise((resolve) => {
    socket.once('connect', () => {
      socket.destroy();
      resolve('connected');
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
  });
}

describe('the connect jail every test file runs in', () => {
  let server: Server;
  let port: number;

  beforeAll(async () => {
    server = createServer((socket) => socket.destroy());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as { port: number }).port;
  });

  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  afterEach(() => {
    // this spec's own refusals were expected: taken here, so the jail's afterEach finds none
    takeRefusals();
  });

  it('refuses a non-loopback IP at once, without sending a packet, and records it', async () => {
    // 192.0.2.1 (TEST-NET-1) would hang until a timeout were it dialled
    const started = Date.now();
    expect(await outcome(connect({ host: '192.0.2.1', port: 9 }))).toBe('X_TEST_JAIL');
    expect(await outcome(connect(443, '2001:db8::1'))).toBe('X_TEST_JAIL');
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(takeRefusals()).toEqual(['192.0.2.1:9', '2001:db8::1:443']);
  });

  it('refuses a name that resolves off this machine, through the connect’s own lookup', async () => {
    const socket = connect({
      host: 'hooks.partner.test',
      port: 80,
      lookup: resolvesTo('203.0.113.7'),
    });
    expect(await outcome(socket)).toBe('X_TEST_JAIL');
    expect(takeRefusals()).toEqual(['hooks.partner.test (203.0.113.7):80']);
  });

  it('lets loopback through: an IP, a name resolving to it, and localhost', async () => {
    expect(await outcome(connect({ host: '127.0.0.1', port }))).toBe('connected');
    const pinned = connect({
      host: 'hooks.partner.test',
      port,
      lookup: resolvesTo('127.0.0.1'),
    });
    expect(await outcome(pinned)).toBe('connected');
    expect(await outcome(new Socket().connect(port, 'localhost'))).toBe('connected');
    expect(takeRefusals()).toEqual([]);
  });

  it('jails the Node processes a test starts, and fails the test when one was refused', async () => {
    // a child inherits NODE_OPTIONS (global-setup.mjs): its connect off this machine fails as it would here, and is
    // logged where this worker reads it; its connect to loopback goes through
    const child = `
      const net = require('node:net');
      const tryConnect = (port, host) => new Promise((resolve) => {
        const socket = net.connect(port, host);
        socket.once('connect', () => { socket.destroy(); resolve('connected'); });
        socket.once('error', (error) => resolve(error.code));
      });
      (async () => console.log(await tryConnect(9, '192.0.2.1'), await tryConnect(${port}, '127.0.0.1')))();
    `;
    const { stdout } = await promisify(execFile)(process.execPath, ['-e', child, 'named-child']);
    expect(stdout.trim()).toBe('X_TEST_JAIL connected');
    expect(takeRefusals()).toEqual([
      expect.stringMatching(/^192\.0\.2\.1:9 \(process \d+: named-child\)$/),
    ]);
  });

  it('knows loopback from the rest', () => {
    expect(['127.0.0.1', '127.8.9.10', '::1', '::ffff:127.0.0.1'].map(isLoopback)).toEqual([
      true,
      true,
      true,
      true,
    ]);
    expect(['10.0.0.1', '0.0.0.0', '::', '::ffff:10.0.0.1', '2001:db8::1'].map(isLoopback)).toEqual(
      [false, false, false, false, false],
    );
  });

  it('lets through the hosts of the servers the run was pointed at, and only those', () => {
    expect(
      configuredHosts({
        DATABASE_URL: 'postgres://jobs:secret@db.internal:5432/jobs',
        JOBS_TEST_DATABASE_URL: 'postgres://10.0.0.7/jobs',
        JOBS_TEST_REDIS_URL: 'redis://[fd00::5]:6379',
        REDIS_URL: 'redis://cache.internal:6379',
      }),
    ).toEqual(new Set(['db.internal', '10.0.0.7', 'fd00::5']));
    expect(configuredHosts({ DATABASE_URL: 'not a url' })).toEqual(new Set());
  });
});
