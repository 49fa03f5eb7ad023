import { jobDriverConformance } from '@ultimat3/jobs/testing';
import { createTestDatabase, resetJobTables, type TestDatabase } from '../test/test-database';
import { postgresJobDriver } from './driver/pg-driver';

let db: TestDatabase;

beforeAll(async () => {
  db = await createTestDatabase();
});

afterAll(async () => {
  await db?.drop();
});

jobDriverConformance('postgres', async (clock) => {
  await resetJobTables(db.executor);
  return postgresJobDriver({ executor: db.executor, clock });
});
