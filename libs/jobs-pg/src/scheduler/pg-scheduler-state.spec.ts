import { schedulerStateConformance } from '@ultimat3/jobs/testing';
import { createTestDatabase, resetJobTables, type TestDatabase } from '../../test/test-database';
import { postgresJobDriver } from '../driver/pg-driver';
import { postgresSchedulerState } from './pg-scheduler-state';

let db: TestDatabase;

beforeAll(async () => {
  db = await createTestDatabase();
});

afterAll(async () => {
  await db?.drop();
});

schedulerStateConformance('postgres', async (clock) => {
  await resetJobTables(db.executor);
  await db.executor.query('delete from x_scheduler_state; delete from x_task_pauses;', []);
  return {
    state: postgresSchedulerState({ executor: db.executor, clock }),
    driver: postgresJobDriver({ executor: db.executor, clock }),
  };
});
