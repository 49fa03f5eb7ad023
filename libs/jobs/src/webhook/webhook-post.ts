import * as http from 'node:http';
import * as https from 'node:https';
import { isIP, type Socket } from 'node:net';
import {
  bareHost,
  checkAddress,
  DestinationRefused,
  guardedLookup,
  type WebhookDestinations,
} from './webhook-destination';

/** One POST: where, what, and which destinations it may reach. */
export interface WebhookPostRequest {
  readonly url: URL;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Buffer;
  readonly destinations: WebhookDestinations;
}

/** How the POST may be stopped. */
export interface WebhookPostControl {
  /** Stops the request at any moment, on the wire or not: the deadline, a lost lease, a cancel. */
  readonly hard: AbortSignal;
  /** Stops the request only while it is not yet on the wire (the drain): one already sent runs to its answer. */
  readonly soft: AbortSignal;
}

/** What came back: an answer with its status, or no answer (refused destination, connection failure). */
export type WebhookPostResult =
  | {
      readonly kind: 'answered';
      readonly status: number;
      readonly retryAfter: string | undefined;
      readonly date: string | undefined;
      readonly location: string | undefined;
    }
  | { readonly kind: 'refused'; readonly reason: string }
  | { readonly kind: 'failed'; readonly reason: string; readonly error: unknown };

/** How much of an answer's body is read before the connection is let go (64 KiB). */
const MAX_ANSWER_BYTES = 65_536;

/** The stop a signal carries, as what the POST rejects with. */
class PostStopped {
  constructor(readonly reason: unknown) {}
}

/** Whether `result` is the stop of a signal (the caller rethrows its reason). */
export function stoppedReason(error: unknown): { readonly reason: unknown } | undefined {
  return error instanceof PostStopped ? error : undefined;
}

const first = (value: string | string[] | undefined): string | undefined =>
  Array.isArray(value) ? value[0] : value;

/**
 * POSTs once, over a fresh connection, never following a redirect (node:http has none to follow; a 3xx comes back as
 * an answer). The host is resolved while the socket connects and every address checked ({@link guardedLookup}); an
 * IP literal, which skips the lookup, is checked here. Rejects only with a stop ({@link stoppedReason}); every other
 * ending is a result.
 */
export function postWebhook(
  request: WebhookPostRequest,
  control: WebhookPostControl,
): Promise<WebhookPostResult> {
  const host = bareHost(request.url.hostname);
  if (isIP(host) !== 0) {
    try {
      checkAddress(host, host, request.destinations);
    } catch (error) {
      return Promise.resolve({ kind: 'refused', reason: (error as DestinationRefused).reason });
    }
  }
  if (control.hard.aborted) return Promise.reject(new PostStopped(control.hard.reason));
  if (control.soft.aborted) return Promise.reject(new PostStopped(control.soft.reason));
  return new Promise<WebhookPostResult>((resolve, reject) => {
    const transport = request.url.protocol === 'https:' ? https : http;
    let onWire = false;
    let stopped: PostStopped | undefined;
    let req: http.ClientRequest;
    try {
      req = transport.request(request.url, {
        method: 'POST',
        headers: { ...request.headers, 'content-length': String(request.body.length) },
        agent: false,
        lookup: guardedLookup(request.destinations) as unknown as http.RequestOptions['lookup'],
      });
    } catch (error) {
      // a request node refuses to build (a header value it will not send) is an attempt that failed, and recorded
      resolve({ kind: 'failed', reason: describe(error as Error), error });
      return;
    }
    const stop = (reason: unknown): void => {
      if (stopped !== undefined) return;
      stopped = new PostStopped(reason);
      cleanup();
      req.destroy();
      reject(stopped);
    };
    const onHard = (): void => stop(control.hard.reason);
    const onSoft = (): void => {
      if (!onWire) stop(control.soft.reason);
    };
    control.hard.addEventListener('abort', onHard, { once: true });
    control.soft.addEventListener('abort', onSoft, { once: true });
    const cleanup = (): void => {
      control.hard.removeEventListener('abort', onHard);
      control.soft.removeEventListener('abort', onSoft);
    };
    req.on('socket', (socket: Socket) => {
      if (!socket.connecting) onWire = true;
      else socket.once('connect', () => (onWire = true));
    });
    req.on('response', (res) => {
      const answer: WebhookPostResult = {
        kind: 'answered',
        status: res.statusCode ?? 0,
        retryAfter: first(res.headers['retry-after']),
        date: first(res.headers.date),
        location: first(res.headers.location),
      };
      // the body is not ours to keep: read it to its end so the answer is whole, but no further than a bound — a
      // receiver streaming without end must not hold the attempt open
      let bytes = 0;
      res.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
        if (bytes <= MAX_ANSWER_BYTES) return;
        cleanup();
        resolve(answer);
        res.destroy();
      });
      res.once('end', () => {
        cleanup();
        resolve(answer);
      });
      res.once('error', () => {
        cleanup();
        resolve(answer);
      });
    });
    req.on('error', (error) => {
      cleanup();
      if (stopped !== undefined) return;
      if (error instanceof DestinationRefused) resolve({ kind: 'refused', reason: error.reason });
      else resolve({ kind: 'failed', reason: describe(error), error });
    });
    req.end(request.body);
  });
}

/** A connection failure in a line: its code and message (never the request's headers). */
function describe(error: Error): string {
  const code = (error as NodeJS.ErrnoException).code;
  return code === undefined ? error.message : `${code}: ${error.message}`;
}
