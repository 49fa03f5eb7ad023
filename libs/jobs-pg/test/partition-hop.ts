import { connect, createServer, type Server, type Socket } from 'node:net';

/**
 * A TCP hop on 127.0.0.1 in front of the real server that forwards both ways until `cut()`, and from then on swallows
 * everything — bytes and the client's FIN alike (half-open sockets: nothing answers the goodbye): a network partition,
 * where a graceful `end()` waits for a close that never comes.
 */
export interface PartitionHop {
  readonly port: number;
  cut(): void;
  stop(): Promise<void>;
}

/** Opens a {@link PartitionHop} on a free port of 127.0.0.1 in front of the server at 127.0.0.1:`upstreamPort`. */
export async function partitionHop(upstreamPort: number): Promise<PartitionHop> {
  const sockets: Socket[] = [];
  let cut = false;
  const server: Server = createServer({ allowHalfOpen: true }, (client) => {
    const upstream = connect({ port: upstreamPort, host: '127.0.0.1', allowHalfOpen: true });
    sockets.push(client, upstream);
    client.on('error', () => undefined);
    upstream.on('error', () => undefined);
    client.on('data', (chunk: Buffer) => void (cut || upstream.write(chunk)));
    upstream.on('data', (chunk: Buffer) => void (cut || client.write(chunk)));
    client.on('end', () => void (cut || upstream.end()));
    upstream.on('end', () => void (cut || client.end()));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  return {
    port: typeof address === 'object' && address ? address.port : 0,
    cut: () => void (cut = true),
    async stop() {
      sockets.forEach((socket) => socket.destroy());
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
