import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request the receiver took: its path, headers and raw body. */
export interface Received {
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

/** What the receiver answers: a status and headers, or `'hold'` to keep the request open until `release()`. */
export type Answer =
  { readonly status: number; readonly headers?: Record<string, string> } | 'hold';

/** A real HTTP server on 127.0.0.1 for webhook specs: counts connections and requests, answers as told. */
export interface Receiver {
  readonly port: number;
  /** `http://127.0.0.1:<port><path>`. */
  url(path?: string): string;
  readonly requests: Received[];
  /** TCP connections accepted (a socket never opened is never counted). */
  connections(): number;
  /** Requests whose client went away before an answer. */
  aborted(): number;
  /** What the next requests are answered (default 200). */
  answer(fn: (req: Received, n: number) => Answer): void;
  /** Answers every held request with `status`. */
  release(status?: number): void;
  close(): Promise<void>;
}

/** Starts a receiver; close it in `afterEach`. */
export async function startReceiver(): Promise<Receiver> {
  const requests: Received[] = [];
  const held: ServerResponse[] = [];
  let connections = 0;
  let aborted = 0;
  let answer: (req: Received, n: number) => Answer = () => ({ status: 200 });
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const received: Received = {
        path: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      requests.push(received);
      const a = answer(received, requests.length);
      if (a === 'hold') {
        held.push(res);
        res.on('close', () => {
          if (!res.writableEnded) aborted++;
        });
        return;
      }
      res.writeHead(a.status, a.headers ?? {}).end('ok');
    });
  });
  server.on('connection', () => connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    url: (path = '/hook') => `http://127.0.0.1:${port}${path}`,
    requests,
    connections: () => connections,
    aborted: () => aborted,
    answer: (fn) => (answer = fn),
    release(status = 200) {
      for (const res of held.splice(0)) if (!res.destroyed) res.writeHead(status).end('ok');
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * Waits until `cond` holds, letting real I/O happen (the sockets are real; only the jobs' clock is frozen). Fails
 * after 5 s of real time with `what`.
 */
export async function until(
  what: string,
  cond: () => boolean | Promise<boolean>,
  turn: () => Promise<void> = () => new Promise((r) => setTimeout(r, 5)),
): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await turn();
  }
}
