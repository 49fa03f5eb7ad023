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

/** Whether `error` is the stop of a signal (the caller rethrows its reason). */
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
  const ended = endedBeforeStart(request, control);
  if (ended !== undefined) return ended;
  return new Promise<WebhookPostResult>((resolve, reject) => {
    let req: http.ClientRequest;
    try {
      req = openRequest(request);
    } catch (error) {
      // a request node refuses to build (a header value it will not send) is an attempt that failed, and recorded
      resolve({ kind: 'failed', reason: describe(error as Error), error });
      return;
    }
    new PostExchange(req, control, resolve, reject).send(request.body);
  });
}

/** The POST's ending before any request is built: an IP literal refused, or a signal already stopped. */
function endedBeforeStart(
  request: WebhookPostRequest,
  control: WebhookPostControl,
): Promise<WebhookPostResult> | undefined {
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
  return undefined;
}

/** The request, not yet sent: no agent (a fresh connection), every resolved address checked. Throws what node does. */
function openRequest(request: WebhookPostRequest): http.ClientRequest {
  const transport = request.url.protocol === 'https:' ? https : http;
  return transport.request(request.url, {
    method: 'POST',
    headers: { ...request.headers, 'content-length': String(request.body.length) },
    agent: false,
    lookup: guardedLookup(request.destinations) as unknown as http.RequestOptions['lookup'],
  });
}

/** What an answer says, read from its status line and headers. */
function answerOf(res: http.IncomingMessage): WebhookPostResult {
  return {
    kind: 'answered',
    status: res.statusCode ?? 0,
    retryAfter: first(res.headers['retry-after']),
    date: first(res.headers.date),
    location: first(res.headers.location),
  };
}

/**
 * One request on its way: settles its POST with the answer or the failure, or rejects it with the stop of a signal —
 * the hard one at any moment, the soft one only while the request is not yet on the wire.
 */
class PostExchange {
  readonly #req: http.ClientRequest;
  readonly #control: WebhookPostControl;
  readonly #resolve: (result: WebhookPostResult) => void;
  readonly #reject: (reason: unknown) => void;
  #onWire = false;
  #answering = false;
  #stopped: PostStopped | undefined;
  readonly #onHard = (): void => this.#stop(this.#control.hard.reason);
  readonly #onSoft = (): void => {
    if (!this.#onWire) this.#stop(this.#control.soft.reason);
  };

  constructor(
    req: http.ClientRequest,
    control: WebhookPostControl,
    resolve: (result: WebhookPostResult) => void,
    reject: (reason: unknown) => void,
  ) {
    this.#req = req;
    this.#control = control;
    this.#resolve = resolve;
    this.#reject = reject;
  }

  /** Listens to both signals and the request, then sends `body`. */
  send(body: Buffer): void {
    const req = this.#req;
    this.#control.hard.addEventListener('abort', this.#onHard, { once: true });
    this.#control.soft.addEventListener('abort', this.#onSoft, { once: true });
    req.on('socket', (socket: Socket) => {
      if (!socket.connecting) this.#onWire = true;
      else socket.once('connect', () => (this.#onWire = true));
    });
    req.on('response', (res) => this.#answered(res));
    req.on('error', (error) => this.#failed(error));
    // a request can close with neither: node drops a 101 + Upgrade answer (no 'upgrade' listener) by closing the
    // socket, and emits no 'response' and no 'error' for it — without this the POST would wait forever
    req.once('close', () => {
      if (!this.#answering) this.#failed(new Error('the connection closed before an answer'));
    });
    req.end(body);
  }

  #stop(reason: unknown): void {
    if (this.#stopped !== undefined) return;
    this.#stopped = new PostStopped(reason);
    this.#cleanup();
    this.#req.destroy();
    this.#reject(this.#stopped);
  }

  #cleanup(): void {
    this.#control.hard.removeEventListener('abort', this.#onHard);
    this.#control.soft.removeEventListener('abort', this.#onSoft);
  }

  #answered(res: http.IncomingMessage): void {
    this.#answering = true;
    const answer = answerOf(res);
    // the body is not ours to keep: read it to its end so the answer is whole, but no further than a bound — a
    // receiver streaming without end must not hold the attempt open
    let bytes = 0;
    res.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
      if (bytes <= MAX_ANSWER_BYTES) return;
      this.#settle(answer);
      res.destroy();
    });
    res.once('end', () => this.#settle(answer));
    res.once('error', () => this.#settle(answer));
  }

  #failed(error: Error): void {
    this.#cleanup();
    if (this.#stopped !== undefined) return;
    if (error instanceof DestinationRefused)
      this.#resolve({ kind: 'refused', reason: error.reason });
    else this.#resolve({ kind: 'failed', reason: describe(error), error });
  }

  #settle(result: WebhookPostResult): void {
    this.#cleanup();
    this.#resolve(result);
  }
}

/** A connection failure in a line: its code and message (never the request's headers). */
function describe(error: Error): string {
  const code = (error as NodeJS.ErrnoException).code;
  return code === undefined ? error.message : `${code}: ${error.message}`;
}
