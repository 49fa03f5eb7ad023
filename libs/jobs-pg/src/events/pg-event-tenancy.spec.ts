import { eventBusTenancyConformance, tenantEventsScenario } from '@ultimat3/jobs/testing';
import { createTestDatabase, type TestDatabase } from '../../test/test-database';
import { postgresEventBus } from './pg-event-bus';

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => {
  await db?.drop();
});

eventBusTenancyConformance('postgres', async () => ({
  bus: postgresEventBus({ executor: db.executor, pageSize: 2 }),
}));

tenantEventsScenario('postgres', async () => postgresEventBus({ executor: db.executor }));
