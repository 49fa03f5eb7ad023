import { memoryBackfillLedger, type BackfillLedger } from '@ultimat3/jobs';
import { createTestDatabase, type TestDatabase } from '../../test/test-database';
import { postgresBackfillLedger } from './pg-backfill-ledger';

/**
 * A ledger listing filtered by a name no row can hold — a NUL, which PostgreSQL's `text` refuses (22021) — answers an
 * empty page on PostgreSQL as the memory ledger does, rather than the raw "invalid byte sequence" of the server. The
 * name reaches the ledger from an operator (`x db backfill --list --name`, the admin surface).
 */
describe('backfill ledger list: a name holding a NUL', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(async () => {
    await db?.drop();
  });

  const seeded = async (ledger: BackfillLedger): Promise<void> => {
    await ledger.begin({
      id: '01890000-0000-7000-8000-000000000001',
      name: 'adopt',
      checksum: 'c1',
      appVersion: null,
      jobId: '01890000-0000-7000-8000-0000000000a1',
      runId: '01890000-0000-7000-8000-0000000000b1',
      nowMs: 1_700_000_000_000,
    });
  };

  it.each([
    ['memory', (): BackfillLedger => memoryBackfillLedger()],
    ['postgres', (): BackfillLedger => postgresBackfillLedger({ executor: db.executor })],
  ])('%s answers an empty page', async (_driver, make) => {
    const ledger = make();
    await seeded(ledger);
    expect(await ledger.list({ name: 'adopt\u0000' })).toEqual([]);
    expect(await ledger.list({ name: '\u0000', status: 'completed' })).toEqual([]);
    expect((await ledger.list({ name: 'adopt' })).map((r) => r.name)).toEqual(['adopt']);
  });
});
