import { jobDriverAgreement } from '@ultimat3/jobs/testing';
import { resetJobTables } from '../test/test-database';
import { pgJobsSpec } from '../test/pg-jobs-spec';
import { postgresJobDriver } from './driver/pg-driver';

const db = pgJobsSpec();

// for every generated value, PostgreSQL answers what the memory driver answers: the same code, or the same value
jobDriverAgreement('postgres', async (clock) => {
  await resetJobTables(db.executor);
  return postgresJobDriver({ executor: db.executor, clock });
});
