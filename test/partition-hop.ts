import { connect, createServer, type Server, type Socket } from 'node:net';

/**
 * A TCP hop on 127.0.0.1 in front of the real server that forwards both ways until it is cut, and from then on
 * swallows everything — bytes and the client's FIN alike (half-open sockets: nothing answers the goodbye): a network
 * partition, where a graceful `end()` waits for a close that never comes. `cut()` cuts every session at once;
 * `cutOn` and `cutAfter` cut one session by itself, at a point of its protocol: a server that opened the session and
 * went silent (a pooler in front of a database it cannot reach, a proxy that lost its server).
 */
export interface PartitionHop {
  readonly port: number;
  /** Cuts every session, now and to come. */
  cut(): void;
  /** Whether any session was cut (by `cut()`, `cutOn` or `cutAfter`). */
  wasCut(): boolean;
  /** Sessions the hop accepted. */
  sessions(): number;
  /** Sessions whose client let its socket go (sent its FIN), cut or not. */
  ended(): number;
  stop(): Promise<void>;
}

/** Options of {@link partitionHop}. */
export interface PartitionHopOptions {
  /**
   * Cuts one session by itself once its client sends a chunk this answers true for (that chunk is swallowed too);
   * `session` counts the hop's sessions from 0.
   */
  readonly cutOn?: (chunk: Buffer, session: number) => boolean;
  /**
   * Cuts one session by itself once everything its server sent so far answers true — after passing on the chunk that
   * made it so: the client got that answer, and nothing after it.
   */
  readonly cutAfter?: (fromServer: Buffer, session: number) => boolean;
}

/** Opens a {@link PartitionHop} on a free port of 127.0.0.1 in front of the server at 127.0.0.1:`upstreamPort`. */
export async function partitionHop(
  upstreamPort: number,
  options: PartitionHopOptions = {},
): Promise<PartitionHop> {
  const sockets: Socket[] = [];
  let all = false;
  let any = false;
  let sessions = 0;
  let ended = 0;
  const server: Server = createServer({ allowHalfOpen: true }, (client) => {
    const session = sessions++;
    let mine = false;
    const cut = (): boolean => all || mine;
    const upstream = connect({ port: upstreamPort, host: '127.0.0.1', allowHalfOpen: true });
    sockets.push(client, upstream);
    client.on('error', () => undefined);
    upstream.on('error', () => undefined);
    client.on('data', (chunk: Buffer) => {
      if (!cut() && options.cutOn?.(chunk, session)) mine = any = true;
      if (!cut()) upstream.write(chunk);
    });
    let fromServer = Buffer.alloc(0);
    upstream.on('data', (chunk: Buffer) => {
      if (cut()) return;
      client.write(chunk);
      if (options.cutAfter === undefined) return;
      fromServer = Buffer.concat([fromServer, chunk]);
      if (options.cutAfter(fromServer, session)) mine = any = true;
    });
    client.on('end', () => {
      ended++;
      if (!cut()) upstream.end();
    });
    upstream.on('end', () => void (cut() || client.end()));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  return {
    port: typeof address === 'object' && address ? address.port : 0,
    cut: () => void (all = any = true),
    wasCut: () => any,
    sessions: () => sessions,
    ended: () => ended,
    async stop() {
      sockets.forEach((socket) => socket.destroy());
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
