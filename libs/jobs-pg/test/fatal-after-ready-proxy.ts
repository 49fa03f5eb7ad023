import { connect, createServer, type Socket } from 'node:net';

/** A loopback proxy to a PostgreSQL server that can end a new session the instant it is ready. */
export interface FatalAfterReadyProxy {
  /** `url` with its host and port swapped for the proxy's. */
  readonly url: string;
  /**
   * The next `count` connections opened through the proxy (after letting the next `after` through, default none) get the server's first ReadyForQuery and, in the same
   * socket write, a FATAL 57P01 ("terminating connection due to administrator command"); then the proxy closes them.
   * What a client sees when the server stops (or `pg_terminate_backend` hits) just as its session became ready, and
   * reads both messages at once.
   */
  arm(count: number, after?: number): void;
  /** Connections that were ended so. */
  readonly ended: number;
  close(): Promise<void>;
}

/** `E` — an ErrorResponse with severity FATAL and SQLSTATE 57P01. */
function adminShutdown(): Buffer {
  const fields = Buffer.concat(
    [
      ['S', 'FATAL'],
      ['V', 'FATAL'],
      ['C', '57P01'],
      ['M', 'terminating connection due to administrator command'],
    ]
      .map(([code, value]) => Buffer.from(`${code}${value}\0`))
      .concat(Buffer.from('\0')),
  );
  const head = Buffer.alloc(5);
  head.write('E', 0);
  head.writeInt32BE(fields.length + 4, 1);
  return Buffer.concat([head, fields]);
}

/**
 * Forwards the server's messages to `client` until the first ReadyForQuery (`Z`), which goes out with the FATAL (and
 * whatever came in its chunk before it) in one write; then both sockets are closed. The server's stream starts at a message boundary (no SSL is negotiated here).
 */
function endAtReady(upstream: Socket, client: Socket, onEnded: () => void): void {
  let pending = Buffer.alloc(0);
  let done = false;
  upstream.on('data', (chunk: Buffer) => {
    if (done) return;
    pending = Buffer.concat([pending, chunk]);
    let offset = 0;
    while (pending.length - offset >= 5) {
      const length = pending.readInt32BE(offset + 1);
      if (pending.length - offset < 1 + length) break;
      const type = String.fromCharCode(pending[offset] ?? 0);
      offset += 1 + length;
      if (type !== 'Z') continue;
      done = true;
      client.end(Buffer.concat([pending.subarray(0, offset), adminShutdown()]));
      upstream.destroy();
      onEnded();
      return;
    }
    // whole messages before the ReadyForQuery (the authentication's exchange) go on as they come
    client.write(pending.subarray(0, offset));
    pending = pending.subarray(offset);
  });
}

/** Starts the proxy in front of the server `url` names. */
export async function startFatalAfterReadyProxy(url: string): Promise<FatalAfterReadyProxy> {
  const target = new URL(url);
  const sockets = new Set<Socket>();
  let skip = 0;
  let armed = 0;
  let ended = 0;
  const server = createServer((client) => {
    const upstream = connect(Number(target.port), target.hostname);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => undefined);
    }
    client.pipe(upstream);
    if (skip > 0) {
      skip--;
      upstream.pipe(client);
    } else if (armed > 0) {
      armed--;
      endAtReady(upstream, client, () => ended++);
    } else upstream.pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const proxied = new URL(url);
  proxied.hostname = '127.0.0.1';
  proxied.port = String(typeof address === 'object' && address ? address.port : 0);
  return {
    url: proxied.toString(),
    arm: (count, after = 0) => {
      armed += count;
      skip += after;
    },
    get ended() {
      return ended;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
