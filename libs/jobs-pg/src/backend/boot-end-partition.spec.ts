import { connect, createServer, type Server, type Socket } from 'node:net';
import { pgJobsSpec } from '../../test/pg-jobs-spec';
import { postgresBackend } from './pg-backend';

/**
 * A TCP hop on 127.0.0.1 in front of the real server that forwards both ways, except on its FIRST session (the boot's):
 * once that session's client sends its goodbye (Terminate, 'X'), the hop swallows everything of it from then on — the
 * Terminate and the client's FIN alike (half-open: nothing answers the goodbye). A network partition that falls just
 * as a successful boot ends its session, where a graceful `end()` waits for a close that never comes.
 */
interface GoodbyeHop {
  readonly port: number;
  /** Whether the boot session's goodbye was swallowed. */
  cut(): boolean;
  stop(): Promise<void>;
}

async function goodbyeHop(upstreamPort: number): Promise<GoodbyeHop> {
  const sockets: Socket[] = [];
  let sessions = 0;
  let cutAny = false;
  const server: Server = createServer({ allowHalfOpen: true }, (client) => {
    const first = sessions++ === 0;
    let cut = false;
    const upstream = connect({ port: upstreamPort, host: '127.0.0.1', allowHalfOpen: true });
    sockets.push(client, upstream);
    client.on('error', () => undefined);
    upstream.on('error', () => undefined);
    client.on('data', (chunk: Buffer) => {
      // Terminate: 'X' then its length (4); the client sends it alone, then its FIN
      if (first && chunk.length === 5 && chunk[0] === 0x58 && chunk.readInt32BE(1) === 4) {
        cut = cutAny = true;
      }
      if (!cut) upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => void (cut || client.write(chunk)));
    client.on('end', () => void (cut || upstream.end()));
    upstream.on('end', () => void (cut || client.end()));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  return {
    port: typeof address === 'object' && address ? address.port : 0,
    cut: () => cutAny,
    async stop() {
      sockets.forEach((socket) => socket.destroy());
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** What `boot` settled with within `ms` of real time, or `'hung'`. */
async function settledWithin<T>(boot: Promise<T>, ms: number): Promise<T | unknown> {
  let timer: NodeJS.Timeout | undefined;
  const hung = new Promise<'hung'>((resolve) => {
    timer = setTimeout(() => resolve('hung'), ms);
  });
  try {
    return await Promise.race([boot.catch((error: unknown) => error), hung]);
  } finally {
    clearTimeout(timer);
  }
}

describe('postgresBackend whose boot session meets a partition at its goodbye', () => {
  const db = pgJobsSpec({ migrate: false });

  for (const migrate of [false, true]) {
    it(`boots all the same, in bounded time (migrate: ${migrate})`, async () => {
      const hop = await goodbyeHop(Number(new URL(db.url).port));
      try {
        const url = new URL(db.url);
        url.port = String(hop.port);
        const startedAt = Date.now();
        const backend = await settledWithin(
          postgresBackend({ url: url.toString() }, { connectTimeoutMs: 300, migrate }),
          8_000,
        );
        expect(hop.cut()).toBe(true); // the boot's goodbye went unanswered
        expect(backend).toMatchObject({ kind: 'postgres', close: expect.any(Function) });
        expect(Date.now() - startedAt).toBeLessThan(8_000);
        await (backend as { close(): Promise<void> }).close();
      } finally {
        await hop.stop();
      }
    });
  }
});
