import { connect, createServer, type Server, type Socket } from 'node:net';
import { errorCodeOf, JobsError } from '@ultimat3/jobs';
import { until } from '../../../../test/until';
import { pgJobsSpec } from '../../test/pg-jobs-spec';
import { postgresBackend } from './pg-backend';

/**
 * A TCP hop on 127.0.0.1 in front of the real server that passes the session's opening (startup, authentication, up
 * to the first ReadyForQuery) and then swallows every statement the client sends: a server that opened the session and
 * went silent — what a pooler in front of a database it cannot reach looks like (PgBouncer answers the opening itself
 * and holds each statement until `query_wait_timeout`, or forever at 0).
 */
interface SilencingHop {
  readonly port: number;
  /** Sessions whose opening went through. */
  opened(): number;
  /** Client sockets let go by the client. */
  closed(): number;
  stop(): Promise<void>;
}

/** Whether `buffer` holds a complete ReadyForQuery ('Z') among the server's messages, read from its start. */
function readyIn(buffer: Buffer): boolean {
  let at = 0;
  while (at + 5 <= buffer.length) {
    const length = buffer.readInt32BE(at + 1);
    if (at + 1 + length > buffer.length) return false;
    if (buffer[at] === 0x5a) return true;
    at += 1 + length;
  }
  return false;
}

async function silencingHop(upstreamPort: number): Promise<SilencingHop> {
  const sockets: Socket[] = [];
  let opened = 0;
  let closed = 0;
  const server: Server = createServer((client) => {
    const upstream = connect(upstreamPort, '127.0.0.1');
    sockets.push(client, upstream);
    let fromServer = Buffer.alloc(0);
    let silent = false;
    client.on('close', () => void closed++);
    client.on('error', () => undefined);
    upstream.on('error', () => undefined);
    client.on('data', (chunk: Buffer) => {
      if (!silent) upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => {
      if (silent) return;
      client.write(chunk);
      fromServer = Buffer.concat([fromServer, chunk]);
      if (readyIn(fromServer)) {
        silent = true;
        opened++;
      }
    });
    client.on('close', () => upstream.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  return {
    port: typeof address === 'object' && address ? address.port : 0,
    opened: () => opened,
    closed: () => closed,
    async stop() {
      sockets.forEach((socket) => socket.destroy());
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** What `boot` settled with within `ms`, or `'hung'`. */
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

describe('postgresBackend over a server that opens the session and then never answers', () => {
  const db = pgJobsSpec({ migrate: false });

  for (const migrate of [false, true]) {
    it(`fails the boot within connectTimeoutMs and lets the session go (migrate: ${migrate})`, async () => {
      const hop = await silencingHop(Number(new URL(db.url).port));
      try {
        const url = new URL(db.url);
        url.port = String(hop.port);
        const startedAt = Date.now();
        const error = await settledWithin(
          postgresBackend({ url: url.toString() }, { connectTimeoutMs: 300, migrate }),
          5_000,
        );
        expect(error).toBeInstanceOf(JobsError);
        expect(errorCodeOf(error)).toBe('X_DRIVER_UNAVAILABLE');
        expect((error as JobsError).meta).toMatchObject({
          reason: 'timeout',
          target: { host: '127.0.0.1', port: hop.port },
        });
        expect(Date.now() - startedAt).toBeLessThan(5_000);
        expect(hop.opened()).toBe(1);
        await until(() => hop.closed() === 1); // the boot let its session go
      } finally {
        await hop.stop();
      }
    });
  }
});
