import { memoryBackfillLedger } from '@ultimat3/jobs';
import { backfillLedgerConformance } from '@ultimat3/jobs/testing';
import { createTestDatabase, type TestDatabase } from '../../test/test-database';
import { postgresBackfillLedger } from './pg-backfill-ledger';

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => {
  await db?.drop();
});

backfillLedgerConformance('memory', async () => ({ ledger: memoryBackfillLedger() }));

backfillLedgerConformance('postgres', async () => {
  await db.pool.query('truncate x_backfills');
  return { ledger: postgresBackfillLedger({ executor: db.executor }) };
});
