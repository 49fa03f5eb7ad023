import { tenantEventsScenario } from '@ultimat3/jobs/testing';
import { createTestDatabase, type TestDatabase } from '../../test/test-database';
import { postgresEventBus } from './pg-event-bus';

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => {
  await db?.drop();
});

// the event bus conformance (tenancy and values) runs once, from backendConformance in src/pg-driver.spec.ts
tenantEventsScenario('postgres', async () => postgresEventBus({ executor: db.executor }));
