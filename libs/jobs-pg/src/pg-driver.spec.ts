import { backendConformance } from '@ultimat3/jobs/testing';
import { createTestDatabase, resetJobTables, type TestDatabase } from '../test/test-database';
import { POSTGRES_CAPABILITIES, postgresBackendOver } from './backend/pg-backend';

let db: TestDatabase;

beforeAll(async () => {
  db = await createTestDatabase();
});

afterAll(async () => {
  await db?.drop();
});

// over a shared executor there is no connection string to LISTEN on: the wake has its own specs (src/wake)
backendConformance('postgres', POSTGRES_CAPABILITIES, async (clock) => {
  await resetJobTables(db.executor);
  await db.executor.query('delete from x_scheduler_state; delete from x_task_pauses;', []);
  return postgresBackendOver(db.executor, { clock });
});
