import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { isIP, Socket } from 'node:net';
import { join } from 'node:path';

/**
 * A jail for the test processes: no test sends traffic off this machine. Every TCP connect a test makes — `pg`,
 * `ioredis`, `fetch`, a webhook delivery, the S3 client — goes through `net.Socket.prototype.connect`, which is
 * wrapped here to refuse any destination that is not a loopback address: an IP literal outside 127.0.0.0/8 and ::1
 * at once, a host name once it resolves (through the connect's own `lookup` when it has one, as a webhook delivery's
 * pinned resolver does). A refused connect fails the socket with `X_TEST_JAIL` and is recorded; the spec in which it
 * happened then fails in `afterEach`, even when the code under test swallowed the socket's error. Unix-domain sockets
 * pass, and so do the hosts of the servers the run was pointed at ({@link configuredHosts}). Installed by jest's
 * `setupFilesAfterEnv` in each test file's worker, and in every Node process started under the run (`global-setup.mjs`
 * compiles this file into a preload that `NODE_OPTIONS` requires): a worker process a spec forks, an example app, the
 * CLI. Such a process appends its refusals to its jest worker's log in the directory
 * {@link JAIL_DIR} names, which that worker reads with its own ({@link takeRefusals}).
 */

/** The variable naming the directory of the refusal logs, one a jest worker (`jail-<JEST_WORKER_ID>.log`). */
export const JAIL_DIR = 'JOBS_TEST_JAIL_DIR';

/** The refusal log of the jest worker this process runs under (or is), when the run keeps logs. */
function logFile(): string | undefined {
  const dir = process.env[JAIL_DIR];
  const worker = process.env.JEST_WORKER_ID;
  return dir && worker ? join(dir, `jail-${worker}.log`) : undefined;
}

/**
 * The jail's state, kept on the shared `Socket.prototype` under a registered symbol: jest evaluates this module afresh
 * for every test file of a worker, but the worker has one `net` module, wrapped once.
 */
interface JailState {
  /** What the jail refused since the last {@link takeRefusals}: `host:port` each. */
  readonly refused: string[];
  /** A process started under the run, whose refusals go to its jest worker's log (see {@link logFile}). */
  readonly log: string | undefined;
}

const STATE = Symbol.for('ultimat3.test-connect-jail');
type Jailed = { [STATE]?: JailState };
const proto = Socket.prototype as Socket & Jailed;

/** Whether `address` is a loopback address (127.0.0.0/8, ::1, or an IPv4-mapped 127.x). */
export function isLoopback(address: string): boolean {
  const plain = address.startsWith('::ffff:') ? address.slice(7) : address;
  if (isIP(plain) === 4) return plain.startsWith('127.');
  return plain === '::1' || plain === '0:0:0:0:0:0:0:1';
}

/** The environment variables naming servers a run may be pointed at on another host (see the README's tests). */
const SERVER_URLS = ['JOBS_TEST_DATABASE_URL', 'DATABASE_URL', 'JOBS_TEST_REDIS_URL'] as const;

/**
 * The hosts of the servers `env` points the run at (`DATABASE_URL=postgres://db.internal/…` in a CI service
 * container): the jail lets those through by name or address, and nothing else off this machine.
 */
export function configuredHosts(env: NodeJS.ProcessEnv): Set<string> {
  const hosts = new Set<string>();
  for (const name of SERVER_URLS) {
    const url = env[name];
    if (!url) continue;
    try {
      const host = new URL(url).hostname;
      if (host) hosts.add(host.startsWith('[') ? host.slice(1, -1) : host);
    } catch {
      // not a URL: its client will say so; nothing is let through for it
    }
  }
  return hosts;
}

/** The refusals recorded so far — this process's, then those logged by the processes under it — emptied. */
export function takeRefusals(): string[] {
  const refused = proto[STATE]?.refused ?? [];
  const own = refused.splice(0, refused.length);
  const log = logFile();
  let logged = '';
  try {
    if (log !== undefined) {
      logged = readFileSync(log, 'utf8');
      writeFileSync(log, '');
    }
  } catch {
    // nothing refused under this worker yet: no log
  }
  return [
    ...own,
    ...logged
      .split('\n')
      .filter((line) => line !== '')
      .map(fromLog),
  ];
}

/** A line of a refusal log (`pid`, `host:port`, the command line; tab-separated) as a refusal: another process named. */
function fromLog(line: string): string {
  const [pid, where, command] = line.split('\t');
  return pid === String(process.pid) ? `${where}` : `${where} (process ${pid}: ${command})`;
}

/** The error a refused connect fails with. */
function jailError(host: string, port: unknown): Error {
  const where = `${host}:${String(port)}`;
  const state = proto[STATE];
  if (state?.log === undefined) state?.refused.push(where);
  else appendFileSync(state.log, `${process.pid}\t${where}\t${process.argv.slice(1).join(' ')}\n`);
  return Object.assign(
    new Error(
      `test jail: a connection to ${where} was refused (tests send no traffic off 127.0.0.1)`,
    ),
    { code: 'X_TEST_JAIL' },
  );
}

type LookupCallback = (
  error: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;
type Lookup = (host: string, options: object, callback: LookupCallback) => void;

/** `lookup` answering only loopback addresses: any other answer fails the connect. */
function jailedLookup(inner: Lookup, port: unknown): Lookup {
  return (host, options, callback) =>
    inner(host, options, (error, address, family) => {
      if (error) return callback(error, address, family);
      const all = Array.isArray(address) ? address.map((a) => a.address) : [address];
      const outside = all.find((a) => !isLoopback(a));
      if (outside !== undefined) return callback(jailError(`${host} (${outside})`, port), '', 4);
      callback(null, address, family);
    });
}

interface ConnectOptions {
  host?: string;
  port?: unknown;
  path?: string;
  lookup?: Lookup;
}

/** The options object of a `connect` call in any of its forms (`net.connect` hands over a normalized array). */
function optionsOf(args: unknown[]): ConnectOptions | undefined {
  const first = Array.isArray(args[0]) ? (args[0] as unknown[])[0] : args[0];
  if (typeof first === 'object' && first !== null) return first as ConnectOptions;
  if (typeof first === 'string' && Number.isNaN(Number(first))) return { path: first };
  if (first !== undefined)
    return { port: first, host: typeof args[1] === 'string' ? args[1] : undefined };
  return undefined;
}

/**
 * Installs the jail in this process (once: a later call finds it installed). `logged`: a process started under the run
 * (the preload `global-setup.mjs` writes), whose refusals are appended to its jest worker's log rather than kept here.
 */
export function installConnectJail({ logged = false }: { logged?: boolean } = {}): void {
  if (proto[STATE] !== undefined) return;
  proto[STATE] = { refused: [], log: logged ? logFile() : undefined };
  const connect = Socket.prototype.connect as (...args: unknown[]) => Socket;
  Socket.prototype.connect = function jailedConnect(this: Socket, ...args: unknown[]): Socket {
    const options = optionsOf(args);
    if (options === undefined || options.path !== undefined) return connect.apply(this, args);
    const host = options.host ?? 'localhost';
    if (configuredHosts(process.env).has(host)) return connect.apply(this, args);
    if (isIP(host) !== 0) {
      if (isLoopback(host)) return connect.apply(this, args);
      const error = jailError(host, options.port);
      process.nextTick(() => this.destroy(error));
      return this;
    }
    // a name: checked once resolved, through the connect's own lookup when it has one
    options.lookup = jailedLookup(options.lookup ?? (dnsLookup as unknown as Lookup), options.port);
    return connect.apply(this, args);
  } as typeof Socket.prototype.connect;
}
