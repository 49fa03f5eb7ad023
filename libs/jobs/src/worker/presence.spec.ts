import { job } from '../declare/job';
import type { JobDriver } from '../driver/job-driver';
import { memoryJobDriver } from '../driver/memory';
import type { WorkerRegistry } from '../driver/workers';
import { t } from '../schema';
import { frozenClock } from '../testing/frozen-clock';
import { runJobs, type JobsHarness } from '../testing/run-jobs';

const input = t.object({ n: t.number });
const VT = 30_000;

/** A memory driver whose registry counts its beats, or refuses them while `refuse` is set. */
function countingDriver(clock: ReturnType<typeof frozenClock>): {
  driver: JobDriver;
  beats: () => number;
  refuse: (on: boolean) => void;
} {
  const inner = memoryJobDriver({ clock });
  const registry = inner.workerRegistry as WorkerRegistry;
  let beats = 0;
  let refusing = false;
  return {
    driver: {
      ...inner,
      workerRegistry: {
        beat(beat, vt) {
          beats++;
          return refusing ? Promise.reject(new Error('registry down')) : registry.beat(beat, vt);
        },
        leave: (id) => registry.leave(id),
      },
    },
    beats: () => beats,
    refuse: (on) => {
      refusing = on;
    },
  };
}

describe('the worker registry heartbeat', () => {
  let h: JobsHarness | undefined;
  let release: () => void = () => undefined;
  afterEach(async () => {
    release();
    await h?.close();
    h = undefined;
  });

  it('lists a running worker with its slots and held runs, one write per interval however many runs it holds', async () => {
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const held = job({
      name: 'presence.held',
      input,
      idempotencyKey: ({ n }) => `n:${n}`,
      tenant: 'none',
      run: () => gate,
    });
    const clock = frozenClock();
    const c = countingDriver(clock);
    h = await runJobs({
      jobs: [held],
      clock,
      driver: c.driver,
      concurrency: 5,
      visibilityTimeoutMs: VT,
    });
    const ids = new Set<string>();
    for (let n = 0; n < 3; n++) ids.add((await held.enqueue({ n })).id);
    await h.settle();
    // the first beat went out at start, before the runs; the next one carries them
    await h.advance(VT / 3);

    const [worker, ...others] = (await c.driver.introspect?.workers()) ?? [];
    expect(others).toEqual([]);
    expect(worker).toMatchObject({
      id: h.worker.id,
      slots: { [held.queue]: 5 },
      queues: [held.queue],
    });
    expect(new Set(worker?.inFlight)).toEqual(ids);

    const before = c.beats();
    await h.advance(VT);
    // a heartbeat interval of a third of the window: three writes per window, not one per held run
    expect(c.beats() - before).toBe(3);

    release();
    await h.settle();
    await h.close();
    h = undefined;
    expect(await c.driver.introspect?.workers()).toEqual([]);
  });

  it('logs a beat that fails and beats again; the row expires one visibility timeout after the last that landed', async () => {
    const clock = frozenClock();
    const c = countingDriver(clock);
    const idle = job({
      name: 'presence.idle',
      input,
      idempotencyKey: ({ n }) => `n:${n}`,
      tenant: 'none',
      run: () => Promise.resolve(),
    });
    h = await runJobs({ jobs: [idle], clock, driver: c.driver, visibilityTimeoutMs: VT });
    await h.settle();
    const landed = clock.now();
    c.refuse(true);
    await h.advance(VT - 1);
    expect(await c.driver.introspect?.workers()).toHaveLength(1);
    expect(h.logger.named('jobs.worker.beat-failed').length).toBeGreaterThan(0);
    await h.advance(1);
    expect(clock.now()).toBe(landed + VT);
    expect(await c.driver.introspect?.workers()).toEqual([]);
    c.refuse(false);
    await h.advance(VT / 3);
    expect((await c.driver.introspect?.workers())?.map((w) => w.id)).toEqual([h.worker.id]);
  });
});
