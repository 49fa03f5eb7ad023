import { join } from 'node:path';
import { spawnWorkerEntry, type WorkerProcess } from './support/worker-process';

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A Nest worker must hold its own process. `createApplicationContext` + `enableShutdownHooks()` used to
 * exit 0 as soon as bootstrap ended (every runtime timer is unref'd, and a context has no server socket) — an exit a
 * supervisor does not restart. The process is real and so is the wait: what is under test is the event loop's life.
 */
describe('a worker process on the memory driver, booted the standard way, with no keep-alive of its own', () => {
  let child: WorkerProcess | undefined;

  afterAll(() => {
    if (child?.child.exitCode === null) child.child.kill('SIGKILL');
  });

  it('is alive and running jobs 10 s after boot, and exits 0 on SIGTERM', async () => {
    child = spawnWorkerEntry(join(__dirname, 'support', 'memory-worker.ts'));
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
});
