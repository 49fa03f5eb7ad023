import { createServer, connect, type Server, type Socket } from 'node:net';

/** What a proxy does with bytes and connections right now. */
export type ProxyMode = 'pass' | 'stall' | 'cut';

/** What a cut does with connections opened while it lasts. */
export type CutNewConnections = 'refuse' | 'blackhole';

/** A fault-injecting TCP proxy between clients and one server, both on loopback. */
export interface TcpProxy {
  /** The port clients connect to instead of the server's. */
  readonly port: number;
  /** The current mode. */
  readonly mode: ProxyMode;
  /** Connections accepted so far, and sockets destroyed by cuts. */
  readonly stats: { readonly accepted: number; readonly cutSockets: number };
  /**
   * Stops forwarding bytes both ways while every socket stays open (a network that drops packets without resetting
   * anything): what each side has sent waits, TCP backpressure fills the buffers, nobody sees an error. Connections
   * opened meanwhile are accepted and held unforwarded.
   */
  stall(): void;
  /**
   * Destroys every socket, both sides (each peer sees a reset), and then either refuses new connections (the port is
   * closed: `ECONNREFUSED`) or black-holes them (accepted, never answered) until {@link heal}.
   */
  cut(newConnections?: CutNewConnections): Promise<void>;
  /** Back to passing bytes: held connections are connected to the server and what waited flows. */
  heal(): Promise<void>;
  /** Destroys every socket and stops listening. */
  close(): Promise<void>;
}

/** One client connection and, once connected, its upstream to the server. */
interface Pair {
  readonly client: Socket;
  upstream: Socket | undefined;
}

/** Forwards `from`'s bytes to `to` while `flowing()`, with backpressure that never resumes a stalled side. */
function forward(from: Socket, to: Socket, flowing: () => boolean): void {
  from.on('data', (chunk: Buffer) => {
    if (!to.write(chunk)) from.pause();
  });
  to.on('drain', () => {
    if (flowing()) from.resume();
  });
  from.on('end', () => to.end());
}

/** Listens on `port` (0: a free one) on loopback; answers the port. */
function listen(server: Server, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      const address = server.address();
      resolve(typeof address === 'object' && address ? address.port : port);
    });
  });
}

/**
 * Starts a proxy on a free loopback port forwarding to `targetPort` on loopback. Starts in `pass` mode. Built for the
 * chaos tier: workers connect to a database or Redis through it, and a scenario stalls, cuts and heals the network.
 */
export async function startTcpProxy(options: {
  readonly targetPort: number;
  readonly targetHost?: string;
}): Promise<TcpProxy> {
  const host = options.targetHost ?? '127.0.0.1';
  const pairs = new Set<Pair>();
  let mode: ProxyMode = 'pass';
  let listening = false;
  const stats = { accepted: 0, cutSockets: 0 };

  const destroy = (pair: Pair): void => {
    pairs.delete(pair);
    pair.client.destroy();
    pair.upstream?.destroy();
  };
  const connectUpstream = (pair: Pair): void => {
    const upstream = connect({ host, port: options.targetPort });
    pair.upstream = upstream;
    upstream.on('error', () => destroy(pair));
    upstream.on('close', () => destroy(pair));
    upstream.on('connect', () => {
      const flowing = (): boolean => mode === 'pass';
      forward(pair.client, upstream, flowing);
      forward(upstream, pair.client, flowing);
      if (flowing()) pair.client.resume();
      else upstream.pause();
    });
  };
  const server = createServer({ pauseOnConnect: true }, (client) => {
    stats.accepted++;
    const pair: Pair = { client, upstream: undefined };
    pairs.add(pair);
    client.on('error', () => destroy(pair));
    client.on('close', () => destroy(pair));
    // held (stall, black hole): accepted, not connected onward until healed
    if (mode === 'pass') connectUpstream(pair);
  });
  const port = await listen(server, 0);
  listening = true;

  const stopListening = async (): Promise<void> => {
    if (!listening) return;
    listening = false;
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };

  return {
    port,
    get mode() {
      return mode;
    },
    get stats() {
      return { ...stats };
    },
    stall() {
      mode = 'stall';
      for (const pair of pairs) {
        pair.client.pause();
        pair.upstream?.pause();
      }
    },
    async cut(newConnections = 'refuse') {
      mode = 'cut';
      for (const pair of [...pairs]) {
        stats.cutSockets++;
        // a reset, not a FIN: the peer sees the connection fail, as when a network path dies
        pair.client.resetAndDestroy();
        pair.upstream?.resetAndDestroy();
        destroy(pair);
      }
      if (newConnections === 'refuse') await stopListening();
    },
    async heal() {
      mode = 'pass';
      if (!listening) {
        await listen(server, port);
        listening = true;
      }
      for (const pair of pairs) {
        if (pair.upstream === undefined) connectUpstream(pair);
        else {
          pair.client.resume();
          pair.upstream.resume();
        }
      }
    },
    async close() {
      mode = 'cut';
      for (const pair of [...pairs]) destroy(pair);
      await stopListening();
    },
  };
}
