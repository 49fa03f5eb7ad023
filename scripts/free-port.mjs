/** A free loopback port, for the throwaway servers and the specs that need one nothing listens on. */
import { createServer } from 'node:net';

/** A port nothing listens on right now: bind port 0 on loopback, read it, let it go. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}
