import { prepareEnqueue } from '../declare/enqueue';
import { job } from '../declare/job';
import type { StepRecord } from '../driver/job-driver';
import { t } from '../schema';
import { MAX_EVENT_PAYLOAD_BYTES, MAX_STEP_NAME_LENGTH, MIN_TIME_MS } from './bounds';
import { assertEventFind, assertEventPublish } from './event';
import { jsonProblem } from './json-value';
import { assertEnqueueRequest, assertStepRecord } from './request';
import { storableDuration } from './settle';

const NOW = Date.UTC(2026, 0, 1);

/** The message `check` throws, or `'passed'`. */
function message(check: () => void): string {
  try {
    check();
    return 'passed';
  } catch (error) {
    return (error as Error).message;
  }
}

describe('value contract: a step record', () => {
  it('a stored step name has room for the suffix a wait adds to the longest step name', () => {
    const step = (name: string): StepRecord => ({
      name,
      attempt: 1,
      startedAt: NOW,
      completedAt: NOW,
    });
    const longest = 'w'.repeat(MAX_STEP_NAME_LENGTH);
    expect(message(() => assertStepRecord(step(`${longest}#event`)))).toBe('passed');
    expect(message(() => assertStepRecord(step('w'.repeat(MAX_STEP_NAME_LENGTH + 17))))).toContain(
      'step.name',
    );
  });

  it('refuses a completion time no driver stores, as it refuses a start time', () => {
    const step: StepRecord = { name: 's', attempt: 1, startedAt: NOW, completedAt: NOW };
    for (const completedAt of [Number.NaN, 1.5, MIN_TIME_MS - 1]) {
      expect(message(() => assertStepRecord({ ...step, completedAt }))).toContain(
        'step.completedAt',
      );
    }
  });
});

describe('value contract: an event to publish', () => {
  it('publishes a payload of exactly 1 MiB of JSON, and refuses one byte more', () => {
    // a string's JSON is its text between two quotes
    const exact = 'x'.repeat(MAX_EVENT_PAYLOAD_BYTES - 2);
    expect(message(() => assertEventPublish('orders.paid', exact))).toBe('passed');
    expect(message(() => assertEventPublish('orders.paid', `${exact}x`))).toContain(
      'event.payload',
    );
  });

  it('keeps an event for at least a millisecond: a ttl of 0 is refused', () => {
    expect(message(() => assertEventPublish('orders.paid', {}, { ttlMs: 1 }))).toBe('passed');
    expect(message(() => assertEventPublish('orders.paid', {}, { ttlMs: 0 }))).toContain(
      'event.ttlMs',
    );
  });

  it('looks events up only since a finite time', () => {
    expect(message(() => assertEventFind('orders.paid', NOW, null))).toBe('passed');
    for (const since of [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY]) {
      expect(message(() => assertEventFind('orders.paid', since, null))).toContain('event.sinceMs');
    }
  });
});

describe('value contract: JSON values', () => {
  it('passes an object met twice, absent members and prototype-less objects below the top', () => {
    const shared = { n: 1 };
    expect(jsonProblem({ a: shared, b: shared, list: [shared, shared] })).toBeUndefined();
    expect(jsonProblem({ outer: { gone: undefined, kept: 1 } })).toBeUndefined();
    // an object with no prototype is plain JSON at any depth, not only at the top
    const bare = Object.create(null) as Record<string, unknown>;
    bare['n'] = 1;
    expect(jsonProblem({ outer: bare, list: [bare] })).toBeUndefined();
    const cyclic: Record<string, unknown> = { n: 1 };
    cyclic['self'] = { back: cyclic };
    expect(jsonProblem(cyclic)).toBe('self.back is a cycle');
  });
});

describe('value contract: counts a driver stores', () => {
  it('counts a negative duration as 0', () => {
    expect(storableDuration(-250)).toBe(0);
  });
});

describe('a request the common path built', () => {
  const report = job({
    name: 'edges.report',
    input: t.object({ n: t.number }),
    idempotencyKey: ({ n }) => `k:${n}`,
    tenant: 'none',
  });

  it('is checked afresh once its run id is swapped for one no driver stores', async () => {
    const built = await prepareEnqueue(report, { n: 1 }, {}, undefined, NOW);
    (built as { runId: unknown }).runId = 'NOT-A-UUID';
    expect(message(() => assertEnqueueRequest(built))).toContain('request.runId');
  });
});
