import { Client } from 'pg';
import type { JobsBackend } from '@ultimat3/jobs';
import { handOffConformance } from '@ultimat3/jobs/testing';
import { resetJobTables } from '../../test/test-database';
import { pgJobsSpec } from '../../test/pg-jobs-spec';
import { postgresBackendOver } from '../backend/pg-backend';
import { statementsFor } from '../driver/statements';
import { startWorkerWake } from './worker-wake';

const db = pgJobsSpec();

// the hand-off suite on a real LISTEN session: the backend over the spec's pool, its wake dialled from the spec's URL
handOffConformance('postgres', async (clock): Promise<JobsBackend> => {
  await resetJobTables(db.executor);
  const backend = postgresBackendOver(db.executor, { clock });
  return {
    ...backend,
    capabilities: { ...backend.capabilities, wake: true, handOff: true },
    startWake: (target, logger) =>
      startWorkerWake({
        listener: () => new Client({ connectionString: db.url }),
        executor: db.executor,
        target,
        logger,
        driver: backend.driver,
        sql: statementsFor(),
      }),
  };
});
