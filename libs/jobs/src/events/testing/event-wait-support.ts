import type { StepApi } from '../../declare/run-args';
import { memoryJobDriver } from '../../driver/memory';
import { claimOf } from '../../driver/job-row';
import type { JobDriver } from '../../driver/job-driver';
import { errorCodeOf } from '../../errors/jobs-error';
import { StepSuspension } from '../../runtime/step-suspension';
import { createStepApi } from '../../runtime/steps';
import { frozenClock } from '../../testing/frozen-clock';
import { uuidv7 } from '../../util/ids';
import type { EventBus } from '../event-bus';

const QUEUE = 'event-values';

/** One running row on a memory driver whose attempts wait on `bus`: each `attempt()` is the step API of a new one. */
export interface WaitingRow {
  attempt(): StepApi;
}

/** Enqueues and claims one row on a fresh memory driver; its steps wait on `bus`. */
export async function waitingRow(bus: EventBus): Promise<WaitingRow> {
  const clock = frozenClock();
  const driver: JobDriver = memoryJobDriver({ clock });
  const id = uuidv7(clock.now());
  await driver.enqueue({
    id,
    runId: uuidv7(clock.now()),
    name: 'event-values.wait',
    queue: QUEUE,
    input: null,
    idempotencyKey: `wait:${id}`,
    tenantId: null,
    enqueuedBy: null,
    runAt: clock.now(),
    maxAttempts: 3,
    priority: 0,
    onConflict: 'dedupe',
    concurrencyKey: null,
    traceparent: null,
  });
  const [row] = await driver.claim({
    workerId: 'event-values',
    visibilityTimeoutMs: 3_600_000,
    slots: [{ queue: QUEUE, limit: 1 }],
  });
  if (row === undefined) throw new Error('event values: the waiting row was not claimed');
  return {
    attempt: () =>
      createStepApi({
        driver,
        jobId: row.id,
        claim: claimOf(row),
        attempt: row.attempt,
        clock,
        events: bus,
        signal: new AbortController().signal,
        stepTimeoutMs: undefined,
        eventPollMs: 30_000,
        tenant: null,
        load: () => driver.steps.load(row.id),
      }),
  };
}

/** What a wait came to: `'suspended'` (nothing matched yet), the code it failed with, or what it received. */
export async function waitOutcome(wait: () => Promise<unknown>): Promise<unknown> {
  try {
    return { received: JSON.stringify(await wait()) };
  } catch (error) {
    if (error instanceof StepSuspension) return 'suspended';
    return { code: errorCodeOf(error) ?? `uncoded: ${String(error).slice(0, 120)}` };
  }
}

/**
 * What a run waiting for `event` sees when `payload` is published: the wait begins (and finds nothing), the event is
 * published, and the next attempt's wait receives it — as exact JSON text, or the code publishing was refused with
 * (after which the wait still finds nothing).
 */
export async function publishedAndReceived(
  bus: EventBus,
  event: string,
  payload: unknown,
): Promise<unknown> {
  const row = await waitingRow(bus);
  const first = await waitOutcome(() => row.attempt().waitForEvent('answer', event));
  if (first !== 'suspended') return { first };
  try {
    await bus.publish(event, payload as never);
  } catch (error) {
    const code = errorCodeOf(error) ?? `uncoded: ${String(error).slice(0, 120)}`;
    return { code, after: await waitOutcome(() => row.attempt().waitForEvent('answer', event)) };
  }
  const received = await waitOutcome(() => row.attempt().waitForEvent('answer', event));
  // a replay answers from the stored step, not the bus: it must be the same text
  const replayed = await waitOutcome(() => row.attempt().waitForEvent('answer', event));
  return JSON.stringify(replayed) === JSON.stringify(received) ? received : { received, replayed };
}
