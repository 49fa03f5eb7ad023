import { driverBackend } from '../driver/backend';
import { memoryJobDriver } from '../driver/memory';
import { frozenClock } from '../testing/frozen-clock';
import { openJobsBackend, type OpenBackendContext, type PostgresPackage } from './backends';
import { loadJobsConfig } from './jobs.config';
import type { JobsModuleOptions } from './jobs.options';
import { rejectionCode } from '../../test/outcomes';

/** A stand-in for `@ultimat3/jobs-pg` that records what it was asked to open. */
function fakePostgres(): { readonly load: () => PostgresPackage; readonly calls: unknown[][] } {
  const calls: unknown[][] = [];
  const driver = memoryJobDriver({ clock: frozenClock() });
  return {
    calls,
    load: () => ({
      postgresBackend: (source, options) => {
        calls.push([source, options]);
        return Promise.resolve(driverBackend(driver));
      },
    }),
  };
}

const context = (over: Partial<OpenBackendContext> = {}): OpenBackendContext => ({
  clock: undefined,
  memoryClock: frozenClock(),
  env: {},
  ...over,
});

describe("openJobsBackend: driver 'postgres'", () => {
  it('never loads the package for the memory driver or an instance', async () => {
    const load = jest.fn();
    await openJobsBackend({ driver: 'memory' }, context({ load }));
    await openJobsBackend({ driver: memoryJobDriver() }, context({ load }));
    expect(load).not.toHaveBeenCalled();
  });

  it('opens postgres.url, else DATABASE_URL, passing the pool, schema, migrate and an explicit clock through', async () => {
    const pg = fakePostgres();
    const clock = frozenClock();
    await openJobsBackend(
      {
        driver: 'postgres',
        postgres: {
          url: 'postgres://a/b',
          poolSize: 3,
          idleConnections: 2,
          schema: 'jobs',
          connectTimeoutMs: 1_500,
        },
      },
      context({ load: pg.load, clock, env: { DATABASE_URL: 'postgres://env/x' } }),
    );
    await openJobsBackend(
      { driver: 'postgres' },
      context({ load: pg.load, env: { DATABASE_URL: 'postgres://env/x' } }),
    );
    expect(pg.calls).toEqual([
      [
        { url: 'postgres://a/b', poolSize: 3, idleConnections: 2 },
        { clock, schema: 'jobs', connectTimeoutMs: 1_500 },
      ],
      [{ url: 'postgres://env/x' }, {}],
    ]);
  });

  it('hands a DataSource over as it is (reused, not a second pool)', async () => {
    const pg = fakePostgres();
    const dataSource = { createQueryRunner: () => ({}) };
    await openJobsBackend(
      { driver: 'postgres', postgres: { dataSource, migrate: false } },
      context({ load: pg.load, env: { DATABASE_URL: 'postgres://ignored' } }),
    );
    expect(pg.calls).toEqual([[{ dataSource }, { migrate: false }]]);
  });

  it('is X_DRIVER_UNAVAILABLE with nowhere to connect, or a DataSource that is not one', async () => {
    const pg = fakePostgres();
    expect(
      await rejectionCode(openJobsBackend({ driver: 'postgres' }, context({ load: pg.load }))),
    ).toBe('X_DRIVER_UNAVAILABLE');
    // an empty DATABASE_URL (`DATABASE_URL=` in a compose file) is nowhere too
    const empty = context({ load: pg.load, env: { DATABASE_URL: '' } });
    expect(await rejectionCode(openJobsBackend({ driver: 'postgres' }, empty))).toBe(
      'X_DRIVER_UNAVAILABLE',
    );
    const notADataSource = { dataSource: {} } as unknown as JobsModuleOptions['postgres'];
    expect(
      await rejectionCode(
        openJobsBackend(
          { driver: 'postgres', postgres: notADataSource },
          context({ load: pg.load }),
        ),
      ),
    ).toBe('X_DRIVER_UNAVAILABLE');
    expect(pg.calls).toEqual([]);
  });

  it('is X_PEER_MISSING with the install line when @ultimat3/jobs-pg is not installed', async () => {
    const load = (): never => {
      throw Object.assign(new Error("Cannot find module '@ultimat3/jobs-pg'"), {
        code: 'MODULE_NOT_FOUND',
      });
    };
    const error: unknown = await openJobsBackend(
      { driver: 'postgres', postgres: { url: 'postgres://a/b' } },
      context({ load }),
    ).catch((e: unknown) => e);
    expect(error).toMatchObject({
      code: 'X_PEER_MISSING',
      fix: 'npm install @ultimat3/jobs-pg pg',
      meta: { packages: ['@ultimat3/jobs-pg', 'pg'] },
    });
    expect(String(error)).toMatch(/driver 'postgres' needs the optional peer @ultimat3\/jobs-pg/);
    expect(
      await rejectionCode(
        openJobsBackend(
          { driver: 'postgres', postgres: { url: 'postgres://a/b' } },
          context({ load: () => ({}) }),
        ),
      ),
    ).toBe('X_DRIVER_UNAVAILABLE');
  });

  it('checks every other option before it opens anything', async () => {
    const pg = fakePostgres();
    const bad = { driver: 'postgres', roles: ['janitor'] } as unknown as JobsModuleOptions;
    expect(
      await rejectionCode(loadJobsConfig(bad, { DATABASE_URL: 'postgres://a/b' }, pg.load)),
    ).toBe('X_INVARIANT');
    expect(pg.calls).toEqual([]);
    const config = await loadJobsConfig(
      { driver: 'postgres' },
      { DATABASE_URL: 'postgres://a/b' },
      pg.load,
    );
    expect(config.driver.kind).toBe('memory');
    await config.closeBackend();
  });
});
