import { join } from 'node:path';
import { spawnWorkerEntry, type WorkerProcess } from './support/worker-process';
import { freePort } from '../../../scripts/free-port.mjs';

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const PASSWORD = 'never-printed';

/**
 * A Nest worker must hold its own process. `createApplicationContext` + `enableShutdownHooks()` used to
 * exit 0 as soon as bootstrap ended (every runtime timer is unref'd, and a context has no server socket) — an exit a
 * supervisor does not restart. The process is real and so is the wait: what is under test is the event loop's life.
 */
describe('a worker process booted the standard way, with no keep-alive of its own', () => {
  let child: WorkerProcess | undefined;

  afterAll(() => {
    if (child?.child.exitCode === null) child.child.kill('SIGKILL');
  });

  it('on the memory driver: is alive and running jobs 10 s after boot, and exits 0 on SIGTERM', async () => {
    child = spawnWorkerEntry(join(__dirname, 'support', 'standard-worker.ts'));
    await child.ready;
    const ranBy = (): number => child!.output().match(/^RAN /gm)?.length ?? 0;

    await pause(10_000);
    expect({ exitCode: child.child.exitCode, signal: child.child.signalCode }).toEqual({
      exitCode: null,
      signal: null,
    });
    // a task fires every second and the worker runs each job: it is working, not merely alive
    expect(ranBy()).toBeGreaterThanOrEqual(8);

    child.child.kill('SIGTERM');
    const exit = await child.exited;
    expect({ exit, output: exit.code === 0 ? '' : child.output() }).toEqual({
      exit: { code: 0, signal: null },
      output: '',
    });
  }, 30_000);

  it('exits non-zero with the coded error when its database cannot be reached, never 0', async () => {
    const port = await freePort();
    const failed = spawnWorkerEntry(join(__dirname, 'support', 'standard-worker.ts'), {
      DATABASE_URL: `postgres://jobs:${PASSWORD}@127.0.0.1:${port}/jobs`,
    });
    const exit = await failed.exited;
    expect(exit.code).not.toBe(0);
    expect(failed.output()).toContain('X_DRIVER_UNAVAILABLE');
    expect(failed.output()).toContain(`127.0.0.1:${port}`);
    expect(failed.output()).not.toContain(PASSWORD);
    expect(failed.output()).not.toContain('READY');
  });
});
