import { jobDriverAgreement } from '@ultimat3/jobs/testing';
import { createTestDatabase, resetJobTables, type TestDatabase } from '../test/test-database';
import { postgresJobDriver } from './driver/pg-driver';

let db: TestDatabase;

beforeAll(async () => {
  db = await createTestDatabase();
});

afterAll(async () => {
  await db?.drop();
});

// for every generated value, PostgreSQL answers what the memory driver answers: the same code, or the same value
jobDriverAgreement('postgres', async (clock) => {
  await resetJobTables(db.executor);
  return postgresJobDriver({ executor: db.executor, clock });
});
