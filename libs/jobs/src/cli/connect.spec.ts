import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { thrownCode } from '../testing/test-kit';
import { connectionUrl, openCliBackend, type PeerLoaders } from './connect';
import { runX } from './program';

const PG = 'postgres://u@db:5432/app';
const REDIS = 'redis://cache:6379';

describe('where x connects', () => {
  it('takes --url first, then DATABASE_URL, then REDIS_URL; JOBS_DRIVER=redis prefers REDIS_URL', () => {
    expect(connectionUrl({ url: REDIS }, { DATABASE_URL: PG })).toBe(REDIS);
    expect(connectionUrl({}, { DATABASE_URL: PG, REDIS_URL: REDIS })).toBe(PG);
    expect(connectionUrl({}, { REDIS_URL: REDIS })).toBe(REDIS);
    expect(connectionUrl({}, { DATABASE_URL: PG, REDIS_URL: REDIS, JOBS_DRIVER: 'redis' })).toBe(
      REDIS,
    );
    // a variable set to nothing (`DATABASE_URL=` in a shell or an .env file) is not set
    expect(connectionUrl({}, { DATABASE_URL: '', REDIS_URL: REDIS })).toBe(REDIS);
    expect(connectionUrl({}, { DATABASE_URL: PG, REDIS_URL: '', JOBS_DRIVER: 'redis' })).toBe(PG);
  });

  it('is X_DRIVER_UNAVAILABLE with nowhere to connect, or a scheme it does not know', async () => {
    expect(await thrownCode(() => connectionUrl({}, {}))).toBe('X_DRIVER_UNAVAILABLE');
    expect(await thrownCode(() => openCliBackend({ url: 'mysql://db/app' }, {}))).toBe(
      'X_DRIVER_UNAVAILABLE',
    );
  });

  it("loads only the named driver's package, and a missing one is X_PEER_MISSING with its install line", async () => {
    const loaded: string[] = [];
    const loaders: PeerLoaders = {
      postgres: () => {
        loaded.push('pg');
        throw new Error("Cannot find module '@ultimat3/jobs-pg'");
      },
      redis: () => {
        loaded.push('redis');
        return {};
      },
    };
    const missing = await openCliBackend({ url: PG }, {}, loaders).catch((e: unknown) => e);
    expect(missing).toMatchObject({ code: 'X_PEER_MISSING' });
    expect(String((missing as Error).message)).toContain('@ultimat3/jobs-pg');
    expect(await thrownCode(() => openCliBackend({ url: REDIS }, {}, loaders))).toBe(
      'X_DRIVER_UNAVAILABLE',
    );
    expect(loaded).toEqual(['pg', 'redis']);
  });
  it('knows postgresql:// and rediss:// (TLS) as well, each through its own package', async () => {
    const opened: string[] = [];
    const backend = (url: string) => {
      opened.push(url);
      return Promise.resolve({ close: () => Promise.resolve() });
    };
    const loaders: PeerLoaders = {
      postgres: () => ({ postgresBackend: (source: { url: string }) => backend(source.url) }),
      redis: () => ({ redisBackend: (options: { url: string }) => backend(options.url) }),
    };
    for (const url of ['postgresql://u@db:5432/app', 'rediss://cache:6380']) {
      await openCliBackend({ url }, {}, loaders);
    }
    expect(opened).toEqual(['postgresql://u@db:5432/app', 'rediss://cache:6380']);
  });
});

describe('runX in process', () => {
  const run = async (...argv: string[]) => {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runX(argv, {
      env: {},
      cwd: process.cwd(),
      streams: { out: (s) => out.push(s), err: (s) => err.push(s) },
    });
    return { code, out: out.join(''), err: err.join('') };
  };

  it('answers help with 0 and a usage mistake with 2, before connecting anywhere', async () => {
    expect(await run('--help')).toMatchObject({
      code: 0,
      out: expect.stringContaining('manifest'),
    });
    expect((await run('jobs', 'delete')).code).toBe(2);
    expect((await run('jobs', 'promote', 'id-1', '--queue', 'q')).code).toBe(2);
    expect((await run('jobs', 'retry', '--state', 'dead', '--from-step', 'b')).code).toBe(2);
    expect((await run('manifest')).err).toContain('--app <module> or --manifest');
    expect((await run('jobs', 'list', '--limit', '0')).code).toBe(2);
    const json = await run('jobs', 'lisst', '--json');
    expect(json.code).toBe(2);
    expect(JSON.parse(json.err)).toEqual({
      error: { code: 'usage', message: expect.stringContaining('lisst') },
    });
    const flags = await run('jobs', 'retry', '--json');
    expect(JSON.parse(flags.err)).toEqual({
      error: { code: 'usage', message: expect.stringContaining('--state') },
    });
  });

  it('prints a failure as its code and fix, as JSON with --json', async () => {
    const plain = await run('queues', 'list');
    expect(plain.code).toBe(1);
    expect(plain.err).toContain('error X_DRIVER_UNAVAILABLE: ');
    expect(plain.err).toContain('fix: Pass --url');
    // the fix is printed once, on its own line: not again at the end of the message
    expect(plain.err).not.toContain('Fix:');
    const json = await run('queues', 'list', '--json');
    expect(JSON.parse(json.err)).toEqual({
      error: {
        code: 'X_DRIVER_UNAVAILABLE',
        message: expect.any(String),
        fix: expect.stringContaining('--url'),
      },
    });
    expect(JSON.parse(json.err).error.message).not.toContain('Fix:');
  });

  it('reads a manifest file and refuses one that is not a manifest', async () => {
    const bad = await run('manifest', '--manifest', 'package.json');
    expect(bad.code).toBe(1);
    expect(bad.err).toContain('X_JOB_DECLARATION_INVALID');
    // a manifest needs both lists; a module given as --app must export a job or task handle
    const dir = mkdtempSync(join(tmpdir(), 'x-manifest-'));
    const jobsOnly = join(dir, 'x.manifest.json');
    writeFileSync(jobsOnly, JSON.stringify({ jobs: [] }));
    const noHandle = 'libs/jobs/test/x-cli/run-x.ts';
    for (const args of [
      ['--manifest', jobsOnly],
      ['--app', noHandle],
    ]) {
      const refused = await run('manifest', ...args);
      expect([args[0], refused.code]).toEqual([args[0], 1]);
      expect(refused.err).toContain('X_JOB_DECLARATION_INVALID');
    }
    rmSync(dir, { recursive: true, force: true });
  });
});
