import type { AnyJobHandle } from '../declare/handle';
import { job } from '../declare/job';
import type { JobDriver } from '../driver/job-driver';
import { memoryJobDriver } from '../driver/memory';
import { memoryEventBus } from '../events/memory-event-bus';
import { JobRegistry } from '../registry/job-registry';
import { t } from '../schema';
import { frozenClock, type FrozenClock } from '../testing/frozen-clock';
import { recordingLogger } from '../util/logger';
import { MAX_DURATION_MS } from '../values/bounds';
import { enqueueRequest } from '../../test/requests';
import { harnessSlot } from '../../test/harness-slot';
import { executeJob } from './execute-job';
import type { JobExecution } from './outcome';

const input = t.object({ n: t.number });

/** Enqueues one row of `handle`, due now; answers its id. */
async function enqueueOne(
  driver: JobDriver,
  clock: FrozenClock,
  handle: AnyJobHandle,
): Promise<string> {
  const request = { name: handle.name, queue: handle.queue, input: { n: 1 } };
  return (await driver.enqueue(enqueueRequest({ ...request, runAt: clock.now() }))).id;
}

/** One attempt of `handle` on its own (no worker): claims its due row and runs it through `executeJob`. */
async function attemptOnce(
  driver: JobDriver,
  clock: FrozenClock,
  handle: AnyJobHandle,
): Promise<JobExecution> {
  const slots = [{ queue: handle.queue, limit: 1 }];
  const [claimed] = await driver.claim({ workerId: 'w1', slots, visibilityTimeoutMs: 30_000 });
  if (claimed === undefined) throw new Error(`nothing of ${handle.name} to claim`);
  const registry = new JobRegistry();
  registry.register(handle);
  const job = registry.get(handle.name);
  const events = memoryEventBus({ clock });
  return executeJob({ driver, clock, claimed, job, logger: recordingLogger(), events });
}

/** How long a step parks its run: the row's `runAt` is when the run is due again. */
describe('how long a step parks the run (memory driver, frozen clock)', () => {
  const { start } = harnessSlot();

  it('a wait within one poll of its timeout parks only until the timeout, and fails there', async () => {
    const handle = job({
      name: 'step-waits.timeout-inside-a-poll',
      input,
      idempotencyKey: ({ n }) => `n:${n}`,
      tenant: 'none',
      eventPoll: '10s',
      retry: { attempts: 1 },
      run: ({ step }) => step.waitForEvent('approval', 'order.approved', { timeout: '15s' }),
    });
    const h = await start({ jobs: [handle] });
    const { id } = await handle.enqueue({ n: 1 });
    await h.settle();
    const began = h.clock.now();
    expect(await h.driver.get(id)).toMatchObject({ state: 'suspended', runAt: began + 10_000 });

    await h.advance(10_000);
    expect(await h.driver.get(id)).toMatchObject({ state: 'suspended', runAt: began + 15_000 });
    await h.advance(5_000);
    const row = await h.driver.get(id);
    expect(row).toMatchObject({ state: 'dead', attempt: 1 });
    expect(row?.lastError).toMatch(/^X_JOB_TIMEOUT/);
  });

  it('a sleep parks the row until its wake time, and the attempt at exactly that time runs on', async () => {
    const handle = job({
      name: 'step-waits.sleep-wakes',
      input,
      idempotencyKey: ({ n }) => `n:${n}`,
      tenant: 'none',
      async run({ step }) {
        await step.sleep('nap', '1s');
        return 'woke';
      },
    });
    const clock = frozenClock();
    const driver = memoryJobDriver({ clock });
    const id = await enqueueOne(driver, clock, handle);
    const wakeAt = clock.now() + 1_000;
    expect(await attemptOnce(driver, clock, handle)).toMatchObject({
      outcome: 'suspended',
      resumeAt: wakeAt,
    });
    expect(await driver.get(id)).toMatchObject({ state: 'suspended', attempt: 0, runAt: wakeAt });

    await clock.advance(1_000);
    expect(await attemptOnce(driver, clock, handle)).toMatchObject({
      outcome: 'completed',
      result: 'woke',
    });
  });

  it('a wait parks at least 1 ms, even under an eventPoll below one', async () => {
    const handle = job({
      name: 'step-waits.sub-ms-poll',
      input,
      idempotencyKey: ({ n }) => `n:${n}`,
      tenant: 'none',
      eventPoll: 0.25,
      run: ({ step }) => step.waitForEvent('approval', 'order.approved'),
    });
    // one attempt on its own: a worker would claim a row parked for less than 1 ms in a hot loop
    const clock = frozenClock();
    const driver = memoryJobDriver({ clock });
    const id = await enqueueOne(driver, clock, handle);
    const execution = await attemptOnce(driver, clock, handle);

    expect(execution).toMatchObject({ outcome: 'suspended', resumeAt: clock.now() + 1 });
    expect(await driver.get(id)).toMatchObject({
      state: 'suspended',
      runAt: clock.now() + 1,
    });
  });

  it('a sleep of exactly the longest duration (100 years) is taken, not refused', async () => {
    const handle = job({
      name: 'step-waits.longest-sleep',
      input,
      idempotencyKey: ({ n }) => `n:${n}`,
      tenant: 'none',
      run: ({ step }) => step.sleep('a century', MAX_DURATION_MS),
    });
    const h = await start({ jobs: [handle] });
    const { id } = await handle.enqueue({ n: 1 });
    await h.settle();

    expect(await h.driver.get(id)).toMatchObject({
      state: 'suspended',
      attempt: 0,
      runAt: h.clock.now() + MAX_DURATION_MS,
    });
  });
});
