import {
  directJobsFacade,
  JobRegistry,
  jobWorker,
  setJobsFacade,
  uuidv7,
  type EnqueueRequest,
  type JobDriver,
  type JobState,
  type JobWorker,
} from '@ultimat3/jobs';
import { until } from '../../../../test/until';
import { xCliBlock, xCliSteps } from './app';
import { enqueueRequest } from '../requests';
import type { ScratchBackend } from '../scratch-backends';

/** One backend the CLI specs operate: the `x` flags that reach it, and the spec's own driver over it. */
export interface XTarget {
  /** `--url …` with `--schema` / `--prefix`: the CLI reaches the same storage as `driver`. */
  readonly flags: readonly string[];
  readonly driver: JobDriver;
  close(): Promise<void>;
}

/** The spec's side: the target, and a worker serving the fixture app's jobs, with the facade installed. */
/** The target over a scratch backend: its driver and flags; `close` closes the backend, then drops its storage. */
export function scratchTarget(scratch: ScratchBackend): XTarget {
  return {
    flags: scratch.flags,
    driver: scratch.backend.driver,
    async close() {
      await scratch.backend.close();
      await scratch.drop();
    },
  };
}

export interface XWorld extends XTarget {
  readonly worker: JobWorker;
  /** Waits until the row is in `state` (10 s at most). */
  untilState(id: string, state: JobState): Promise<void>;
  /** `n` rows of `name` on `queue` (a queue no worker serves), each dead-lettered by its one attempt. */
  seedDead(queue: string, n: number): Promise<readonly string[]>;
  /** A row on `queue` no worker serves: it waits `ready`. */
  seedReady(queue: string, n: number): Promise<readonly string[]>;
  /** `n` rows on `queue` waiting on a run time an hour away: `delayed`. */
  seedDelayed(queue: string, n: number): Promise<readonly string[]>;
}

let seq = 0;
function request(queue: string, runAt = 0): EnqueueRequest {
  seq += 1;
  const id = uuidv7();
  return enqueueRequest({
    id,
    name: 'x-cli.seeded',
    queue,
    input: { n: seq },
    idempotencyKey: `seeded:${id}`,
    runAt,
    maxAttempts: 1,
  });
}

/** Starts the fixture app's worker on `target` (fast polls and heartbeats: a cancel lands within ~200 ms). */
export async function openWorld(target: XTarget): Promise<XWorld> {
  const registry = new JobRegistry();
  registry.register(xCliSteps);
  registry.register(xCliBlock);
  const { driver } = target;
  const worker = jobWorker({
    driver,
    registry,
    pollIntervalMs: 50,
    idlePollMaxMs: 200,
    visibilityTimeoutMs: 3_000,
    heartbeatIntervalMs: 200,
  });
  const uninstall = setJobsFacade(
    directJobsFacade({ driver, onEnqueued: (q) => worker.signalEnqueued(q) }),
  );
  await worker.start();
  return {
    ...target,
    worker,
    untilState: (id, state) => until(async () => (await driver.get(id))?.state === state),
    async seedDead(queue, n) {
      const requests = Array.from({ length: n }, () => request(queue));
      for (let i = 0; i < n; i += 500) await driver.enqueueMany(requests.slice(i, i + 500));
      for (;;) {
        const claimed = await driver.claim({
          workerId: 'x-cli-seeder',
          slots: [{ queue, limit: 500 }],
          visibilityTimeoutMs: 60_000,
        });
        if (claimed.length === 0) break;
        await Promise.all(
          claimed.map((row) =>
            driver.nack(row.id, {
              kind: 'dead',
              workerId: row.workerId,
              claim: row.claim,
              error: 'X_SEEDED: dead on purpose',
            }),
          ),
        );
      }
      return requests.map((r) => r.id);
    },
    async seedReady(queue, n) {
      const requests = Array.from({ length: n }, () => request(queue));
      await driver.enqueueMany(requests);
      return requests.map((r) => r.id);
    },
    async seedDelayed(queue, n) {
      const requests = Array.from({ length: n }, () => request(queue, Date.now() + 3_600_000));
      await driver.enqueueMany(requests);
      return requests.map((r) => r.id);
    },
    async close() {
      await worker.stop();
      uninstall();
      await target.close();
    },
  };
}
