import { job } from '../declare/job';
import { memoryJobDriver } from '../driver/memory';
import { errorCodeOf } from '../errors/jobs-error';
import { JobRegistry } from '../registry/job-registry';
import { t } from '../schema';
import { jobWorker } from '../worker/job-worker';

/** The code `fn` throws, or `'returned'`. */
function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
    return 'returned';
  } catch (error) {
    return errorCodeOf(error) ?? `uncoded: ${String(error)}`;
  }
}

let declared = 0;
const declare = (extra: Record<string, unknown>) => () =>
  job({
    name: `values.declared.${++declared}`,
    input: t.object({}),
    idempotencyKey: () => 'k',
    tenant: 'none',
    ...extra,
  });

describe('value contract: declarations', () => {
  it('retry.attempts 3e9 is X_JOB_DECLARATION_INVALID (the column is a 32-bit integer)', () => {
    expect(codeOf(declare({ retry: { attempts: 3e9 } }))).toBe('X_JOB_DECLARATION_INVALID');
    expect(codeOf(declare({ retry: { attempts: 1_000_000 } }))).toBe('returned');
  });

  it('a declared priority of NaN, 1.5 or 1e10 is X_JOB_DECLARATION_INVALID', () => {
    for (const priority of [Number.NaN, 1.5, 1e10, -1e10]) {
      expect(codeOf(declare({ priority }))).toBe('X_JOB_DECLARATION_INVALID');
    }
    expect(codeOf(declare({ priority: 2_147_483_647 }))).toBe('returned');
  });

  it('a retry delay of 1e15 ms is X_JOB_DECLARATION_INVALID, never a retry due past year 9999', () => {
    expect(codeOf(declare({ retry: { delay: 1e15 } }))).toBe('X_JOB_DECLARATION_INVALID');
    expect(codeOf(declare({ retry: { maxDelay: 1e15 } }))).toBe('X_JOB_DECLARATION_INVALID');
  });

  it('a timeout, step timeout or event poll of 1e15 ms is X_JOB_DECLARATION_INVALID', () => {
    for (const field of ['timeout', 'stepTimeout', 'eventPoll']) {
      expect(codeOf(declare({ [field]: 1e15 }))).toBe('X_JOB_DECLARATION_INVALID');
    }
  });
});

describe('value contract: worker settings', () => {
  const worker = (extra: Record<string, unknown>) => () =>
    jobWorker({ driver: memoryJobDriver(), registry: new JobRegistry(), ...extra });

  it('visibilityTimeoutMs: 2 is refused (a 400 ms body was started 5 times at once)', () => {
    expect(codeOf(worker({ visibilityTimeoutMs: 2 }))).toBe('X_INVARIANT');
    expect(codeOf(worker({ visibilityTimeoutMs: 999 }))).toBe('X_INVARIANT');
    expect(codeOf(worker({ visibilityTimeoutMs: 1_000 }))).toBe('returned');
  });

  it('a heartbeat below 100 ms, or above half the visibility timeout, is refused', () => {
    expect(codeOf(worker({ heartbeatIntervalMs: 10 }))).toBe('X_INVARIANT');
    expect(codeOf(worker({ visibilityTimeoutMs: 30_000, heartbeatIntervalMs: 20_000 }))).toBe(
      'X_INVARIANT',
    );
    expect(codeOf(worker({ visibilityTimeoutMs: 30_000, heartbeatIntervalMs: 15_000 }))).toBe(
      'returned',
    );
  });
});
