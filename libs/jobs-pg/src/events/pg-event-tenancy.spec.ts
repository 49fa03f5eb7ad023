import { tenantEventsScenario } from '@ultimat3/jobs/testing';
import { pgJobsSpec } from '../../test/pg-jobs-spec';
import { postgresEventBus } from './pg-event-bus';

const db = pgJobsSpec();

// the event bus conformance (tenancy and values) runs once, from backendConformance in src/pg-driver.spec.ts
tenantEventsScenario('postgres', async () => postgresEventBus({ executor: db.executor }));
