import { spawn, type ChildProcess } from 'node:child_process';
import { untilValue } from '../../../../test/until';
import { join } from 'node:path';

/** The repo's one way to run TypeScript in a child process (shared with the jobs-pg two-worker spec). */
const REGISTER = join(
  __dirname,
  '..',
  '..',
  '..',
  '..',
  'libs',
  'jobs-pg',
  'test',
  'swc-register.js',
);
const ENTRY = join(__dirname, 'probe-worker.ts');

/** How a worker process ended. */
export interface WorkerExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

/** A running `probe-worker.ts` process. */
export interface WorkerProcess {
  readonly child: ChildProcess;
  readonly pid: number;
  /** Everything it printed so far (stdout and stderr), for a failing test's message. */
  output(): string;
  /** Resolves once it printed READY (bootstrapped: migrated, worker started); rejects if it exits first. */
  readonly ready: Promise<void>;
  readonly exited: Promise<WorkerExit>;
}

/** Spawns a probe worker on `databaseUrl` (TypeScript through `swc-register.js`; no `dist/` involved). */
export function spawnProbeWorker(
  databaseUrl: string,
  env: Readonly<Record<string, string>> = {},
): WorkerProcess {
  return spawnWorkerEntry(ENTRY, { ...env, DATABASE_URL: databaseUrl });
}

/**
 * Spawns `entry` (a `.ts` or `.js` file, compiled on load through `swc-register.js`) with `env` over this process's
 * environment. `ready` is what it prints once bootstrapped (default `READY `).
 */
export function spawnWorkerEntry(
  entry: string,
  env: Readonly<Record<string, string>> = {},
  readyText = 'READY ',
): WorkerProcess {
  const child = spawn(process.execPath, ['-r', REGISTER, entry], {
    env: { ...process.env, ...env, NO_COLOR: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const exited = new Promise<WorkerExit>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const ready = new Promise<void>((resolve, reject) => {
    const take = (chunk: Buffer): void => {
      output += chunk.toString();
      if (output.includes(readyText)) resolve();
    };
    child.stdout?.on('data', take);
    child.stderr?.on('data', take);
    void exited.then(({ code, signal }) =>
      reject(new Error(`worker ${child.pid} exited (${signal ?? code}) before ready:\n${output}`)),
    );
  });
  ready.catch(() => undefined);
  if (child.pid === undefined) throw new Error('the worker process did not spawn');
  return { child, pid: child.pid, output: () => output, ready, exited };
}

/** Polls `read` until it answers something, failing after `ms` (default 20 s: a child process boots) with `what`. */
export function until<T>(
  what: string,
  read: () => Promise<T | undefined>,
  ms = 20_000,
): Promise<T> {
  return untilValue(what, read, ms);
}
