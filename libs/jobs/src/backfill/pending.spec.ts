import type { BackfillDescriptor } from '../declare/backfill-definition';
import type { BackfillPassRow, BackfillStatus } from './ledger';
import { pendingBackfills } from './pending';

const declared = (name: string, checksum: string): BackfillDescriptor => ({
  kind: 'backfill',
  name,
  checksum,
  requires: null,
  environments: null,
  counts: false,
  batch: 1_000,
  rate: 5,
});

let n = 0;
/** A pass of `name` under `checksum`, started at `startedAt`, standing at `status`. */
function pass(
  name: string,
  status: BackfillStatus,
  startedAt: number,
  checksum: string,
): BackfillPassRow {
  const id = `01950000-0000-7000-8000-${String(++n).padStart(12, '0')}`;
  return {
    id,
    name,
    checksum,
    status,
    appVersion: null,
    jobId: id,
    runId: id,
    rows: 1,
    batches: 1,
    lastCursor: [1],
    lastError: status === 'failed' ? 'boom' : null,
    startedAt,
    updatedAt: startedAt,
    completedAt: status === 'completed' ? startedAt : null,
  };
}

describe('pendingBackfills', () => {
  it('reads the newest pass of each name whatever order the runs come in', () => {
    const declarations = [declared('p-retried', 'now'), declared('p-broken', 'now')];
    const runs = [
      pass('p-retried', 'failed', 1_000, 'now'),
      pass('p-retried', 'completed', 2_000, 'now'), // a forced rerun that succeeded
      pass('p-broken', 'completed', 1_000, 'now'),
      pass('p-broken', 'failed', 2_000, 'now'), // a forced rerun that failed
    ];
    for (const order of [runs, [...runs].reverse()]) {
      const report = pendingBackfills({ declarations, runs: order, environment: 'test' });
      expect(report.rows.map((r) => [r.name, r.state, r.lastRun?.startedAt])).toEqual([
        ['p-retried', 'completed', 2_000],
        ['p-broken', 'failed', 2_000],
      ]);
      expect(report.pending).toEqual(['p-broken']);
    }
  });

  it('warns of a moved checksum by the newest completed pass, not by a newer pass still in flight', () => {
    const report = pendingBackfills({
      declarations: [declared('p-same', 'now'), declared('p-moved', 'now')],
      runs: [
        pass('p-same', 'completed', 1_000, 'now'),
        pass('p-same', 'running', 2_000, 'a-later-build'),
        pass('p-moved', 'completed', 1_000, 'an-older-build'),
        pass('p-moved', 'running', 2_000, 'now'),
      ],
      environment: 'test',
    });
    expect(report.rows.map((r) => [r.name, r.state, r.checksumMoved])).toEqual([
      ['p-same', 'running', false],
      ['p-moved', 'running', true],
    ]);
  });
});
