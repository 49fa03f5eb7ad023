import { errorCodeOf, MAX_IDEMPOTENCY_KEY_LENGTH, type EnqueueRequest } from '@ultimat3/jobs';
import { frozenClock } from '@ultimat3/jobs/testing';
import { JOB_TABLES } from '../../test/test-database';
import { pgJobsSpec } from '../../test/pg-jobs-spec';
import { request } from '../../test/requests';
import { postgresSchedulerState } from './pg-scheduler-state';

describe('postgresSchedulerState.fire with a request no driver can store exactly', () => {
  const db = pgJobsSpec({ emptyBeforeEach: [...JOB_TABLES, 'x_scheduler_state', 'x_task_pauses'] });
  const clock = frozenClock();

  const fire = (requests: EnqueueRequest[]) => ({
    task: 'a',
    occurrenceMs: 1_000,
    watermarkMs: 1_000,
    previousWatermarkMs: 0,
    requests,
  });

  const count = async (): Promise<number> => {
    const { rows } = await db.pool.query<{ n: number }>('select count(*)::int as n from x_jobs');
    return rows[0]?.n ?? -1;
  };

  it.each([
    ['a key over the limit', { idempotencyKey: 'k'.repeat(MAX_IDEMPOTENCY_KEY_LENGTH + 1) }],
    ['a key with a NUL', { idempotencyKey: 'k\u0000k' }],
  ])(
    'refuses %s with X_VALUE_INVALID before writing, as the memory and Redis states do',
    async (_, fault) => {
      const state = postgresSchedulerState({ executor: db.executor, clock });
      await state.skipTo('a', 0, undefined);
      const error: unknown = await state
        .fire(fire([request(), request(fault)]))
        .catch((e: unknown) => e);
      expect(errorCodeOf(error)).toBe('X_VALUE_INVALID');
      expect(await count()).toBe(0);
      expect(await state.load(['a'])).toEqual(new Map([['a', 0]]));
    },
  );
});
