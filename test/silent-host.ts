import { createServer, type Server, type Socket } from 'node:net';

/** A TCP host on 127.0.0.1 that accepts connections, reads, and never says a word. */
export interface SilentHost {
  readonly port: number;
  /** Every connection it accepted. */
  readonly sockets: Socket[];
  /** How many of those the other side let go. */
  closed(): number;
  /** Destroys every connection and stops listening. */
  stop(): Promise<void>;
}

/** Starts a {@link SilentHost}: what hung a boot forever before boots were bounded. */
export async function silentHost(): Promise<SilentHost> {
  const sockets: Socket[] = [];
  let closed = 0;
  const server: Server = createServer((socket) => {
    sockets.push(socket);
    socket.on('close', () => void closed++);
    socket.resume();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  return {
    port: typeof address === 'object' && address ? address.port : 0,
    sockets,
    closed: () => closed,
    async stop() {
      sockets.forEach((socket) => socket.destroy());
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
