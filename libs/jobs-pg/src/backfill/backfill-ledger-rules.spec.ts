import {
  backfill,
  type BackfillInput,
  type BackfillLedger,
  type BackfillResult,
  type JobSettled,
} from '@ultimat3/jobs';
import { frozenClock } from '@ultimat3/jobs/testing';
import { BfPost } from '../../test/backfill-posts';
import { drive, postsSpec } from '../../test/posts-spec';
import { postgresJobDriver } from '../driver/pg-driver';
import { postgresBackfillLedger } from './pg-backfill-ledger';

const posts = postsSpec({ migrate: true, seed: 40 });
let ledger: BackfillLedger;

beforeAll(() => {
  ledger = postgresBackfillLedger({ executor: posts.db.executor });
});

let seq = 0;
type Extra = Partial<Parameters<typeof backfill<BfPost>>[0]>;

/** A pass over every post on the PostgreSQL job driver, recording into the PostgreSQL ledger. */
async function sweep(extra: Extra = {}, environment = 'test') {
  const clock = frozenClock();
  const settled: JobSettled<BackfillInput, BackfillResult>[] = [];
  const handle = backfill<BfPost>({
    name: `rules-${++seq}`,
    batch: 15,
    rate: 100,
    tenant: 'none',
    clock,
    retry: { attempts: 1 },
    runtime: { ledger, environment, appVersion: '9.9.9' },
    source: () => posts.data.getRepository(BfPost).createQueryBuilder('p'),
    handle: () => undefined,
    onSettled: (s) => void settled.push(s),
    ...extra,
  });
  const h = await posts.runJobs({
    jobs: [handle],
    clock,
    driver: postgresJobDriver({ executor: posts.db.executor, clock }),
  });
  const run = async (input: BackfillInput = {}) => {
    const before = settled.length;
    const { runId } = await handle.enqueue(input);
    await drive(h, () => settled.length > before, 50);
    return {
      runId,
      settled: settled[settled.length - 1] as JobSettled<BackfillInput, BackfillResult>,
    };
  };
  return { handle, run, harness: h };
}

describe('the ledger a pass writes (PostgreSQL driver and ledger)', () => {
  it('a completed row makes the next pass a no-op naming it; force sweeps again into a new row', async () => {
    const { handle, run } = await sweep();
    const first = await run();
    expect(first.settled).toMatchObject({
      outcome: 'completed',
      result: { rows: 40, batches: 3, skipped: false, previousRunId: null },
    });
    const again = await run();
    expect(again.settled).toMatchObject({
      outcome: 'completed',
      result: { name: handle.name, rows: 0, batches: 0, skipped: true, previousRunId: first.runId },
    });
    const forced = await run({ force: true });
    expect(forced.settled).toMatchObject({ result: { rows: 40, skipped: false } });

    const rows = await ledger.list({ name: handle.name });
    expect(rows.map((r) => [r.runId, r.status, r.rows, r.appVersion])).toEqual([
      [forced.runId, 'completed', 40, '9.9.9'],
      [first.runId, 'completed', 40, '9.9.9'],
    ]);
    expect(rows[1]?.lastCursor).toEqual([40]);
  });

  it('warns when the completed row was recorded under another checksum, and still skips', async () => {
    const { handle, run, harness } = await sweep();
    const jobId = '01950000-0000-7000-8000-00000000c5a1';
    await ledger.begin({
      id: '01950000-0000-7000-8000-00000000c5a2',
      name: handle.name,
      checksum: 'an-older-build',
      appVersion: '1.0.0',
      jobId,
      runId: '01950000-0000-7000-8000-00000000c5a3',
      nowMs: Date.UTC(2025, 0, 1),
    });
    await ledger.finish(
      '01950000-0000-7000-8000-00000000c5a2',
      'completed',
      { rows: 1, batches: 1, lastCursor: [1], nowMs: Date.UTC(2025, 0, 1) },
      null,
    );
    const { settled } = await run();
    expect(settled).toMatchObject({
      result: { skipped: true, previousRunId: '01950000-0000-7000-8000-00000000c5a3' },
    });
    expect(harness.logger.named('jobs.backfill.checksum-moved')).toEqual([
      expect.objectContaining({
        level: 'warn',
        fields: expect.objectContaining({ backfill: handle.name, recorded: 'an-older-build' }),
      }),
    ]);
  });

  it('X_BACKFILL_STALLED: the source ran out and count() still matches rows; the row is failed', async () => {
    const { handle, run } = await sweep({ count: () => 3 });
    const { settled } = await run();
    expect(settled).toMatchObject({ outcome: 'dead-lettered', code: 'X_BACKFILL_STALLED' });
    const [row] = await ledger.list({ name: handle.name });
    expect(row).toMatchObject({ status: 'failed', rows: 40, batches: 3 });
    expect(row?.lastError).toContain('X_BACKFILL_STALLED');
  });

  it('a count that converges completes; a count that is not a whole number is X_INVARIANT', async () => {
    const converged = await sweep({ count: () => 0 });
    expect((await converged.run()).settled).toMatchObject({ outcome: 'completed' });
    await converged.harness.close();
    const nan = await sweep({ count: () => Number.NaN });
    expect((await nan.run()).settled).toMatchObject({
      outcome: 'dead-lettered',
      code: 'X_INVARIANT',
    });
  });

  it('a count still matching one row stalls the pass; a negative count is X_INVARIANT, not converged', async () => {
    const one = await sweep({ count: () => 1 });
    expect((await one.run()).settled).toMatchObject({
      outcome: 'dead-lettered',
      code: 'X_BACKFILL_STALLED',
    });
    await one.harness.close();
    const negative = await sweep({ count: () => -1 });
    expect((await negative.run()).settled).toMatchObject({
      outcome: 'dead-lettered',
      code: 'X_INVARIANT',
    });
  });

  it('X_BACKFILL_ENVIRONMENT: the pass refuses an environment it is not declared for, before any row', async () => {
    const { handle, run } = await sweep({ environments: ['staging', 'production'] }, 'test');
    const { settled } = await run();
    expect(settled).toMatchObject({ outcome: 'dead-lettered', code: 'X_BACKFILL_ENVIRONMENT' });
    expect(await ledger.list({ name: handle.name })).toEqual([]);
  });

  it('a pass with no ledger sweeps anyway, with no bookkeeping', async () => {
    const { handle, run } = await sweep({ runtime: { environment: 'test' } });
    expect((await run()).settled).toMatchObject({ result: { rows: 40, skipped: false } });
    expect((await run()).settled).toMatchObject({ result: { rows: 40, skipped: false } });
    expect(await ledger.list({ name: handle.name })).toEqual([]);
  });
});

describe('declaration checks (X_BACKFILL_DECLARATION_INVALID)', () => {
  const base = {
    tenant: 'none' as const,
    source: () => posts.data.getRepository(BfPost).createQueryBuilder('p'),
    handle: () => undefined,
  };

  it.each([0, 1.5, Number.NaN, -3, 100_001, '1000'])('refuses batch %p', (batch) => {
    expect(() => backfill({ ...base, name: `bad-batch-${++seq}`, batch: batch as number })).toThrow(
      expect.objectContaining({
        code: 'X_BACKFILL_DECLARATION_INVALID',
        meta: expect.objectContaining({ field: 'batch' }),
      }),
    );
  });

  it.each([0, -1, Number.POSITIVE_INFINITY, Number.NaN, '5'])('refuses rate %p', (rate) => {
    expect(() => backfill({ ...base, name: `bad-rate-${++seq}`, rate: rate as number })).toThrow(
      expect.objectContaining({
        code: 'X_BACKFILL_DECLARATION_INVALID',
        meta: expect.objectContaining({ field: 'rate' }),
      }),
    );
  });

  it('accepts a fractional rate, and refuses a missing tenant, source or handle and an empty environments list', () => {
    expect(backfill({ ...base, name: `slow-${++seq}`, rate: 0.5 }).name).toBe(`slow-${seq}`);
    const bad = [
      { ...base, tenant: undefined },
      { ...base, source: undefined },
      { ...base, handle: 'nope' },
      { ...base, environments: [] },
      { ...base, requires: '' },
    ];
    for (const def of bad) {
      expect(() => backfill({ ...(def as typeof base), name: `bad-${++seq}` })).toThrow(
        expect.objectContaining({ code: 'X_BACKFILL_DECLARATION_INVALID' }),
      );
    }
  });

  it('the job is keyed by its name: a second enqueue of a live pass is the same pass, force or not', async () => {
    const clock = frozenClock();
    const handle = backfill({ ...base, name: `keyed-${++seq}`, clock });
    await posts.runJobs({ jobs: [handle], clock });
    const first = await handle.enqueue({});
    const second = await handle.enqueue({ force: true });
    expect(second).toEqual({ ...first, deduped: true });
    expect(handle.idempotencyKeyOf({})).toBe(handle.name);
  });
});
