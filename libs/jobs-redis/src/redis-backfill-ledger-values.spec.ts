import {
  memoryBackfillLedger,
  type BackfillLedger,
  type BackfillPassRow,
  type BackfillStatus,
} from '@ultimat3/jobs';
import { createTestRedis, type TestRedis } from '../test/test-redis';
import { redisBackfillLedger } from './redis-backfill-ledger';

let redis: TestRedis;
beforeAll(() => {
  redis = createTestRedis();
});
afterAll(async () => {
  await redis?.drop();
});

const T0 = 1_700_000_000_000;

/** What the ledger answers after a pass with an empty app version fails with no error text, and a few listings. */
async function answers(ledger: BackfillLedger): Promise<unknown> {
  const row = await ledger.begin({
    id: '01890000-0000-7000-8000-000000000001',
    name: 'adopt',
    checksum: 'c1',
    appVersion: '',
    jobId: '01890000-0000-7000-8000-0000000000a1',
    runId: '01890000-0000-7000-8000-0000000000b1',
    nowMs: T0,
  });
  await ledger.finish(
    row.id,
    'failed',
    { rows: 1, batches: 1, lastCursor: null, nowMs: T0 + 1 },
    null,
  );
  const ids = (rows: readonly BackfillPassRow[]): string[] => rows.map((r) => r.id);
  return {
    row: await ledger.byJob(row.jobId!),
    byEmptyName: ids(await ledger.list({ name: '' })),
    byEmptyStatus: ids(await ledger.list({ status: '' as BackfillStatus })),
    byNul: ids(await ledger.list({ name: 'adopt\u0000' })),
    byNulAlone: ids(await ledger.list({ name: '\u0000', status: 'failed' })),
    byName: ids(await ledger.list({ name: 'adopt', status: 'failed' })),
    all: ids(await ledger.list()),
  };
}

describe('redis backfill ledger: the values the memory ledger keeps', () => {
  it('stores an empty app version and a failure without text as given, and lists an empty name or status as one', async () => {
    const memory = await answers(memoryBackfillLedger());
    expect(memory).toMatchObject({
      row: { appVersion: '', status: 'failed', lastError: null },
      byEmptyName: [],
      byEmptyStatus: [],
      byNul: [],
      byNulAlone: [],
      byName: ['01890000-0000-7000-8000-000000000001'],
      all: ['01890000-0000-7000-8000-000000000001'],
    });
    expect(
      await answers(redisBackfillLedger({ client: redis.client, prefix: redis.prefix() })),
    ).toEqual(memory);
  });
});
