import { uuidv7 } from '../../util/ids';
import type { BackfillLedger, BackfillPassProgress, BackfillPassStart } from '../ledger';

/** The ledger under test over EMPTY storage. */
export interface BackfillLedgerUnderTest {
  /** The ledger under test. */
  readonly ledger: BackfillLedger;
  /** Frees what `make` opened; called after each test. */
  close?(): Promise<void>;
}

/** Builds the ledger under test. Called once per test. */
export type MakeBackfillLedger = () => Promise<BackfillLedgerUnderTest>;

const T0 = Date.UTC(2026, 5, 1);

/** A starting pass of `name` for a fresh job, at `nowMs`. */
function start(name: string, nowMs = T0, jobId = uuidv7(nowMs)): BackfillPassStart {
  return {
    id: uuidv7(nowMs),
    name,
    checksum: `sum-${name}`,
    appVersion: '1.2.3',
    jobId,
    runId: uuidv7(nowMs),
    nowMs,
  };
}

const at = (
  rows: number,
  batches: number,
  lastCursor: BackfillPassProgress['lastCursor'],
  nowMs: number,
): BackfillPassProgress => ({ rows, batches, lastCursor, nowMs });

/**
 * The behaviour every {@link BackfillLedger} shares — one row per pass, adopted by its own job's retries, a completed
 * row never rewritten, newest-first listing — run against the ledger `make` builds. Call it inside a spec file.
 */
export function backfillLedgerConformance(name: string, make: MakeBackfillLedger): void {
  describe(`backfill ledger: ${name}`, () => {
    let under: BackfillLedgerUnderTest;
    let ledger: BackfillLedger;
    beforeEach(async () => {
      under = await make();
      ledger = under.ledger;
    });
    afterEach(async () => {
      await under.close?.();
    });

    it('inserts a running row, and a second begin of the same job adopts it', async () => {
      const first = start('adopt');
      const row = await ledger.begin(first);
      expect(row).toMatchObject({
        id: first.id,
        name: 'adopt',
        status: 'running',
        checksum: 'sum-adopt',
        appVersion: '1.2.3',
        jobId: first.jobId,
        runId: first.runId,
        rows: 0,
        batches: 0,
        lastCursor: null,
        lastError: null,
        startedAt: T0,
        completedAt: null,
      });
      const again = await ledger.begin({ ...first, id: uuidv7(), nowMs: T0 + 5_000 });
      expect(again).toEqual(row);
      expect(await ledger.list({ name: 'adopt' })).toHaveLength(1);
    });

    it('a retry adopts its failed row: running again under its run, started when the pass began', async () => {
      const first = start('retry');
      await ledger.begin(first);
      await ledger.progress(first.id, at(10, 1, [10], T0 + 1_000));
      await ledger.finish(first.id, 'failed', at(10, 1, [10], T0 + 2_000), 'boom');
      expect(await ledger.byJob(first.jobId)).toMatchObject({
        status: 'failed',
        lastError: 'boom',
      });

      const retryRun = uuidv7(T0 + 60_000);
      const adopted = await ledger.begin({
        ...first,
        id: uuidv7(),
        runId: retryRun,
        nowMs: T0 + 60_000,
      });
      expect(adopted).toMatchObject({
        id: first.id,
        status: 'running',
        runId: retryRun,
        rows: 10,
        lastCursor: [10],
        startedAt: T0,
        updatedAt: T0 + 60_000,
      });
    });

    it('records progress while running and completes once; a completed row is never rewritten', async () => {
      const pass = start('complete');
      await ledger.begin(pass);
      await ledger.progress(pass.id, at(1_000, 1, ['b', 7], T0 + 1_000));
      expect(await ledger.byJob(pass.jobId)).toMatchObject({
        rows: 1_000,
        batches: 1,
        lastCursor: ['b', 7],
        updatedAt: T0 + 1_000,
      });
      await ledger.finish(pass.id, 'completed', at(1_500, 2, ['c', 9], T0 + 2_000), null);
      const done = await ledger.byJob(pass.jobId);
      expect(done).toMatchObject({ status: 'completed', rows: 1_500, completedAt: T0 + 2_000 });

      await ledger.progress(pass.id, at(1, 1, null, T0 + 3_000));
      await ledger.finish(pass.id, 'failed', at(1, 1, null, T0 + 3_000), 'late');
      expect(await ledger.begin({ ...pass, id: uuidv7(), nowMs: T0 + 4_000 })).toEqual(done);
    });

    it('leaves a failed row as it is on a late progress write; completing it keeps the failure text', async () => {
      const pass = start('late');
      await ledger.begin(pass);
      await ledger.finish(pass.id, 'failed', at(5, 1, [5], T0 + 1_000), 'boom');
      // a write of the attempt that failed, arriving after its failure was recorded
      await ledger.progress(pass.id, at(9, 2, [9], T0 + 2_000));
      expect(await ledger.byJob(pass.jobId)).toMatchObject({
        status: 'failed',
        rows: 5,
        batches: 1,
        lastCursor: [5],
        updatedAt: T0 + 1_000,
        completedAt: null,
      });
      await ledger.begin({ ...pass, id: uuidv7(), nowMs: T0 + 3_000 });
      await ledger.finish(pass.id, 'completed', at(20, 4, [20], T0 + 4_000), null);
      expect(await ledger.byJob(pass.jobId)).toMatchObject({
        status: 'completed',
        rows: 20,
        lastError: 'boom',
        completedAt: T0 + 4_000,
      });
    });

    it('hands out copies: editing a row read back, its cursor included, changes no stored row', async () => {
      const pass = start('copies');
      const begun = await ledger.begin(pass);
      (begun as { rows: number }).rows = 99;
      await ledger.progress(pass.id, at(10, 1, { after: ['b', 7] }, T0 + 1_000));
      for (const read of [await ledger.byJob(pass.jobId), (await ledger.list())[0]]) {
        const cursor = read?.lastCursor as { after: unknown[] } | undefined;
        cursor?.after.push('edited');
        (read as { status: string } | undefined)!.status = 'completed';
      }
      expect(await ledger.byJob(pass.jobId)).toMatchObject({
        status: 'running',
        rows: 10,
        lastCursor: { after: ['b', 7] },
      });
    });

    it('lists newest pass first, by name, by status and up to a limit', async () => {
      const a1 = start('list-a', T0);
      const b1 = start('list-b', T0 + 1_000);
      const a2 = start('list-a', T0 + 2_000);
      for (const s of [a1, b1, a2]) await ledger.begin(s);
      await ledger.finish(a1.id, 'completed', at(3, 1, [3], T0 + 500), null);

      expect((await ledger.list()).map((r) => r.id)).toEqual([a2.id, b1.id, a1.id]);
      expect((await ledger.list({ name: 'list-a' })).map((r) => r.id)).toEqual([a2.id, a1.id]);
      expect((await ledger.list({ name: 'list-a', status: 'completed' })).map((r) => r.id)).toEqual(
        [a1.id],
      );
      expect((await ledger.list({ limit: 1 })).map((r) => r.id)).toEqual([a2.id]);
      expect(await ledger.list({ name: 'nobody' })).toEqual([]);
      await expect(ledger.list({ limit: 0 })).rejects.toMatchObject({ code: 'X_INVARIANT' });
      expect(await ledger.list({ limit: 1_000 })).toHaveLength(3);
      await expect(ledger.list({ limit: 1_001 })).rejects.toMatchObject({ code: 'X_INVARIANT' });
    });

    it('lists passes started in the same millisecond by id, newest (largest) first', async () => {
      const ids = ['0', '2', '1'].map((d) => `01950000-0000-7000-8000-00000000000${d}`);
      for (const id of ids) await ledger.begin({ ...start('tie'), id });
      expect((await ledger.list({ name: 'tie' })).map((r) => r.id)).toEqual(
        [...ids].sort().reverse(),
      );
    });

    it('answers no row for a job that runs no pass, and ignores writes to a row that does not exist', async () => {
      expect(await ledger.byJob(uuidv7())).toBeUndefined();
      expect(await ledger.byJob('not-a-uuid')).toBeUndefined();
      await ledger.progress(uuidv7(), at(1, 1, null, T0));
      await ledger.finish(uuidv7(), 'completed', at(1, 1, null, T0), null);
      await ledger.progress('not-a-uuid', at(1, 1, null, T0));
      await ledger.finish('not-a-uuid', 'failed', at(1, 1, null, T0), 'boom');
      expect(await ledger.list()).toEqual([]);
    });
  });
}
