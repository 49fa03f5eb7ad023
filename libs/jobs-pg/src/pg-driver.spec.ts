import { backendConformance } from '@ultimat3/jobs/testing';
import { resetJobTables } from '../test/test-database';
import { pgJobsSpec } from '../test/pg-jobs-spec';
import { POSTGRES_CAPABILITIES, postgresBackendOver } from './backend/pg-backend';
import { postgresEventBus } from './events/pg-event-bus';

const db = pgJobsSpec();

// over a shared executor there is no connection string to LISTEN on: the wake has its own specs (src/wake). The event
// bus conformance runs here (declared events), and only here: its bus reads pages of 2 events, so a lookup that walks
// past refused or other tenants' events crosses pages
backendConformance('postgres', POSTGRES_CAPABILITIES, async (clock) => {
  await resetJobTables(db.executor);
  await db.executor.query('delete from x_scheduler_state; delete from x_task_pauses;', []);
  const backend = postgresBackendOver(db.executor, { clock });
  return { ...backend, events: postgresEventBus({ executor: db.executor, pageSize: 2 }) };
});
