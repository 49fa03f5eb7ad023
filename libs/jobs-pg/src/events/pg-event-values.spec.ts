import { eventBusValuesConformance } from '@ultimat3/jobs/testing';
import { createTestDatabase, type TestDatabase } from '../../test/test-database';
import { postgresEventBus } from './pg-event-bus';

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => {
  await db?.drop();
});

// a small page, so a lookup that walks past refused or other events crosses pages
eventBusValuesConformance('postgres', async () => ({
  bus: postgresEventBus({ executor: db.executor, pageSize: 2 }),
}));
