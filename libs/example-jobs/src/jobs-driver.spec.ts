import { exampleJobsBackend, exampleJobsDriver, exampleJobsWhere } from './jobs-driver';

describe('the example apps: JOBS_DRIVER', () => {
  const dataSource = { createQueryRunner: () => ({}) };

  it('keeps the jobs on the DataSource by default, migrating nothing itself', async () => {
    const migrateOutbox = jest.fn(() => Promise.resolve());
    expect(await exampleJobsBackend({ dataSource, migrateOutbox }, {})).toEqual({
      driver: 'postgres',
      postgres: { dataSource },
    });
    expect(exampleJobsWhere({ JOBS_DRIVER: 'postgres' })).toBe('PostgreSQL');
    expect(migrateOutbox).not.toHaveBeenCalled();
  });

  it('puts the jobs on Redis (REDIS_URL, prefix example or JOBS_REDIS_PREFIX) after creating the outbox table', async () => {
    const migrateOutbox = jest.fn(() => Promise.resolve());
    const env = { JOBS_DRIVER: 'redis', REDIS_URL: 'redis://user:secret@cache:6379' };
    expect(await exampleJobsBackend({ dataSource, migrateOutbox }, env)).toEqual({
      driver: 'redis',
      redis: { prefix: 'example' },
    });
    expect(migrateOutbox).toHaveBeenCalledTimes(1);
    expect(
      await exampleJobsBackend({ dataSource, migrateOutbox }, { ...env, JOBS_REDIS_PREFIX: 'e2e' }),
    ).toEqual({ driver: 'redis', redis: { prefix: 'e2e' } });
    expect(exampleJobsWhere(env)).toBe('Redis at redis://***@cache:6379');
  });

  it('refuses any other JOBS_DRIVER, naming the choices', () => {
    expect(() => exampleJobsDriver({ JOBS_DRIVER: 'mysql' })).toThrow(
      'JOBS_DRIVER must be postgres or redis (got "mysql").',
    );
  });
});
