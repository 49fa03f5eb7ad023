/**
 * Both ends of a spec's worker process, run from source through `swc-register.js` with an IPC channel: the spec
 * forks it with `spawnWorker`, the process serves with `serveWorker`. The process sends `{ type: 'ready', live }` once
 * serving; on SIGTERM it drains, sends `{ type: 'stopped', ... }` and exits.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { Client, type Pool } from 'pg';
import type { JobWorker } from '@ultimat3/jobs';
import { startWorkerWake, type PgExecutor } from '@ultimat3/jobs-pg';

/** A forked worker process and the messages it is expected to send. */
export interface Spawned<Ready, Stopped> {
  readonly child: ChildProcess;
  /** Its `ready` message; rejects if it exits first. */
  readonly ready: Promise<Ready>;
  /** Its `stopped` message, or undefined if it exited without one. */
  readonly stopped: Promise<Stopped | undefined>;
}

/** Forks `script` (a file of this folder) with `args`; `label` names it in the error when it dies before `ready`. */
export function spawnWorker<Ready, Stopped>(
  script: string,
  args: readonly string[],
  label: string,
): Spawned<Ready, Stopped> {
  const child = fork(join(__dirname, script), [...args], {
    execArgv: ['-r', join(__dirname, 'swc-register.js')],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const message = <T>(type: string): Promise<T | undefined> =>
    new Promise((resolve, reject) => {
      const onMessage = (m: { type: string } & T): void => {
        if (m.type !== type) return;
        child.off('exit', onExit);
        resolve(m);
      };
      const onExit = (code: number | null): void => {
        child.off('message', onMessage);
        if (type === 'stopped') resolve(undefined);
        else reject(new Error(`worker ${label} exited with ${code} before ${type}`));
      };
      child.on('message', onMessage);
      child.once('exit', onExit);
    });
  // only `stopped` resolves undefined (on exit); `ready` rejects instead
  return {
    child,
    ready: message<Ready>('ready') as Promise<Ready>,
    stopped: message<Stopped>('stopped'),
  };
}

/** What `serveWorker` serves and what it closes. */
export interface ServeWorkerOptions {
  /** The database the wake listens on (the process's argv, unchecked like the pool's). */
  readonly url: string | undefined;
  /** The process's pool, ended after the drain. */
  readonly pool: Pool;
  /** The executor over `pool` the worker's driver uses. */
  readonly executor: PgExecutor;
  readonly worker: JobWorker;
  /** The fields of the `stopped` message besides its type, read once the worker has stopped. */
  readonly stopped: () => Record<string, unknown>;
}

/**
 * In the worker process: starts `worker` with a proven wake and its hand-off, then sends `ready`. On SIGTERM it stops
 * the wake and drains, closes the pool, and sends `{ type: 'stopped', ...stopped() }`.
 */
export async function serveWorker(options: ServeWorkerOptions): Promise<void> {
  const { url, pool, executor, worker, stopped } = options;
  // the worker's wake with its hand-off: other processes' enqueues claim rows for it while it is idle
  const wake = startWorkerWake({
    listener: () => new Client({ connectionString: url }),
    executor,
    target: worker,
  });
  await wake.ready();
  await worker.start();
  process.once('SIGTERM', () => {
    // as the Nest host stops: the wake (and the hand-off's registration) first, the drain begun beside it
    const wakeStopped = wake.stop();
    worker.beginDrain('SIGTERM');
    void wakeStopped
      .then(() => worker.stop())
      .then(() => pool.end())
      .then(() => {
        process.send?.({ type: 'stopped', ...stopped() });
        process.disconnect?.();
      });
  });
  process.send?.({ type: 'ready', live: wake.live() });
}
