/**
 * The DTO peers are optional: nothing loads them until a class is declared as an input, and without them that
 * declaration is X_PEER_MISSING. Each test loads the package in a fresh module registry, with the peer made
 * unloadable the way a missing package is (`require` throws MODULE_NOT_FOUND).
 */
type JobModule = typeof import('../../declare/job');
type SchemaModule = typeof import('../index');

const notInstalled = (name: string) => () => {
  const error = new Error(`Cannot find module '${name}'`) as Error & { code: string };
  error.code = 'MODULE_NOT_FOUND';
  throw error;
};

/** Loads `job` and `t` in a registry where class-validator's factory records whether it ran. */
function isolated(validator: () => unknown): { job: JobModule['job']; t: SchemaModule['t'] } {
  let loaded: { job: JobModule['job']; t: SchemaModule['t'] } | undefined;
  jest.isolateModules(() => {
    jest.doMock('class-validator', validator);
    const { job } = jest.requireActual<JobModule>('../../declare/job');
    const { t } = jest.requireActual<SchemaModule>('../index');
    loaded = { job, t };
  });
  if (loaded === undefined) throw new Error('isolateModules did not run');
  return loaded;
}

afterEach(() => {
  jest.dontMock('class-validator');
  jest.resetModules(); // a module a factory answered is cached beyond its isolated registry
});

describe('DTO peers', () => {
  it('are not loaded by the package, nor by a job whose input is a schema', () => {
    let required = false;
    const { job, t } = isolated(() => {
      required = true;
      return jest.requireActual('class-validator');
    });
    job({
      name: 'peers.schema-only',
      input: t.object({ a: t.string }),
      idempotencyKey: ({ a }) => a,
      tenant: 'none',
    });
    expect(required).toBe(false);
  });

  it('are loaded when a class is declared as an input', () => {
    let required = false;
    const { job } = isolated(() => {
      required = true;
      return jest.requireActual('class-validator');
    });
    class Dto {
      a!: string;
    }
    job({ name: 'peers.dto-loaded', input: Dto, idempotencyKey: ({ a }) => a, tenant: 'none' });
    expect(required).toBe(true);
  });

  it('missing, make a class input X_PEER_MISSING at the declaration, naming both packages and the fix', () => {
    const { job } = isolated(notInstalled('class-validator'));
    class Dto {
      a!: string;
    }
    let thrown: unknown;
    try {
      job({ name: 'peers.dto-missing', input: Dto, idempotencyKey: ({ a }) => a, tenant: 'none' });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toMatchObject({
      code: 'X_PEER_MISSING',
      fix: 'npm install class-validator class-transformer',
      meta: { packages: ['class-validator', 'class-transformer'] },
    });
    expect((thrown as Error).cause).toMatchObject({ code: 'MODULE_NOT_FOUND' });
  });
});
