import { connect, createServer, type Server, type Socket } from 'node:net';
import { Redis } from 'ioredis';
import { until } from '../../../test/until';
import { testRedisUrl } from '../test/test-redis';
import { redisBackend } from './redis-backend';

/**
 * A TCP hop on 127.0.0.1 in front of the real server that forwards both ways until the server's answer to a PING
 * (`+PONG`) has gone through, and from then on swallows everything: a Redis that answered the boot's PING and went
 * silent before its eviction-policy check (`INFO memory`) — a partition, or a proxy that lost its server.
 */
interface SilentAfterPongHop {
  readonly port: number;
  /** Whether a PONG went through (the boot's PING was answered). */
  ponged(): boolean;
  /** Client sockets let go by the client. */
  closed(): number;
  stop(): Promise<void>;
}

async function silentAfterPongHop(upstreamPort: number): Promise<SilentAfterPongHop> {
  const sockets: Socket[] = [];
  let silent = false;
  let closed = 0;
  const server: Server = createServer((client) => {
    const upstream = connect(upstreamPort, '127.0.0.1');
    sockets.push(client, upstream);
    client.on('error', () => undefined);
    upstream.on('error', () => undefined);
    client.on('data', (chunk: Buffer) => void (silent || upstream.write(chunk)));
    upstream.on('data', (chunk: Buffer) => {
      if (silent) return;
      client.write(chunk);
      if (chunk.includes('+PONG\r\n')) silent = true;
    });
    client.on('close', () => {
      closed++;
      upstream.destroy();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  return {
    port: typeof address === 'object' && address ? address.port : 0,
    ponged: () => silent,
    closed: () => closed,
    async stop() {
      sockets.forEach((socket) => socket.destroy());
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** What `boot` settled with within `ms` of real time, or `'hung'`. */
async function settledWithin(boot: Promise<unknown>, ms: number): Promise<unknown> {
  let timer: NodeJS.Timeout | undefined;
  const hung = new Promise<'hung'>((resolve) => {
    timer = setTimeout(() => resolve('hung'), ms);
  });
  try {
    return await Promise.race([
      boot.then(
        () => 'booted',
        (error: unknown) => error,
      ),
      hung,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

describe('redisBackend over a Redis that answers the PING and then goes silent', () => {
  it("fails the boot within connectTimeoutMs on a caller's client (maxRetriesPerRequest: null)", async () => {
    const hop = await silentAfterPongHop(Number(new URL(testRedisUrl()).port));
    const client = new Redis(hop.port, '127.0.0.1', { maxRetriesPerRequest: null });
    client.on('error', () => undefined);
    try {
      await new Promise<void>((resolve) => client.once('ready', () => resolve()));
      const startedAt = Date.now();
      const outcome = await settledWithin(redisBackend({ client, connectTimeoutMs: 300 }), 5_000);
      expect(hop.ponged()).toBe(true); // the PING was answered: it is the check after it that met the silence
      expect(outcome).toMatchObject({
        code: 'X_DRIVER_UNAVAILABLE',
        message: expect.stringContaining('did not answer within 300 ms'),
        fix: expect.stringContaining('connectTimeoutMs'),
      });
      expect(Date.now() - startedAt).toBeLessThan(5_000);
    } finally {
      client.disconnect();
      await hop.stop();
    }
  });

  it('fails the boot within connectTimeoutMs on a client it opened, and ends that client', async () => {
    const hop = await silentAfterPongHop(Number(new URL(testRedisUrl()).port));
    try {
      const outcome = await settledWithin(
        redisBackend({ url: `redis://127.0.0.1:${hop.port}`, connectTimeoutMs: 300 }),
        5_000,
      );
      expect(hop.ponged()).toBe(true);
      expect(outcome).toMatchObject({
        code: 'X_DRIVER_UNAVAILABLE',
        message: expect.stringContaining('did not answer within 300 ms'),
      });
      await until(() => hop.closed() === 1); // the client it opened let the socket go
    } finally {
      await hop.stop();
    }
  });
});
