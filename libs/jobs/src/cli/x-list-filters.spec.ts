import type { JobsBackend } from '../driver/backend';
import type { EnqueueRequest } from '../driver/job-driver';
import type { BulkView } from '../operator/bulk';
import type { JobPageView } from '../operator/job-views';
import { uuidv7 } from '../util/ids';
import { runX } from './program';
import { enqueueRequest } from '../../test/requests';
import { scratchPostgres, scratchRedis } from '../../test/scratch-backends';

/** A backend of this file's own, and the `x` flags that reach it. */
interface Target {
  readonly backend: JobsBackend;
  readonly flags: readonly string[];
  drop(): Promise<void>;
}

const TARGETS: readonly [string, () => Promise<Target>][] = [
  ['PostgreSQL', () => scratchPostgres('x_list')],
  ['Redis', () => scratchRedis('x-list')],
];

const Q = 'x-list';

/**
 * `x jobs list` and the bulk forms hand every filter flag to the projection: `--state`, `--name`, `--tenant`,
 * `--id-prefix`, `--created-from`, `--created-to` (run in process: the flag mapping, not the binary, is under test).
 */
describe.each(TARGETS)('x filter flags against %s', (_label, open) => {
  let target: Target;
  beforeAll(async () => {
    target = await open();
  });
  afterAll(async () => {
    await target?.backend.close();
    await target?.drop();
  });

  const x = async <T>(...args: string[]): Promise<T> => {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runX([...args, ...target.flags, '--json'], {
      env: {},
      cwd: process.cwd(),
      streams: { out: (s) => out.push(s), err: (s) => err.push(s) },
    });
    if (code !== 0) throw new Error(`x ${args.join(' ')} exited ${code}: ${err.join('')}`);
    return JSON.parse(out.join('')) as T;
  };
  const ids = (page: JobPageView) => page.jobs.map((j) => j.id).sort();

  function request(name: string, tenantId: string | null): EnqueueRequest {
    const id = uuidv7();
    return enqueueRequest({
      id,
      name,
      queue: Q,
      input: {},
      idempotencyKey: id,
      tenantId,
      runAt: 0,
      maxAttempts: 1,
    });
  }

  it('lists by state, name, tenant, id prefix and creation window', async () => {
    const { driver } = target.backend;
    const tenant = uuidv7();
    const a = await driver.enqueue(request('x-list.a', null));
    const b = await driver.enqueue(request('x-list.b', tenant));
    await new Promise((resolve) => setTimeout(resolve, 5));
    const c = await driver.enqueue(request('x-list.a', tenant));
    const [claimed] = await driver.claim({
      workerId: 'w',
      slots: [{ queue: Q, limit: 1 }],
      visibilityTimeoutMs: 60_000,
    });
    const cRow = (await driver.get(c.id))!;

    const list = (...flags: string[]) => x<JobPageView>('jobs', 'list', '--queue', Q, ...flags);
    expect(ids(await list('--state', 'running'))).toEqual([claimed!.id]);
    expect(ids(await list('--name', 'x-list.a'))).toEqual([a.id, c.id].sort());
    expect(ids(await list('--tenant', tenant))).toEqual([b.id, c.id].sort());
    expect(ids(await list('--name', 'x-list.a', '--tenant', tenant))).toEqual([c.id]);
    expect(ids(await list('--id-prefix', c.id.slice(0, 32)))).toEqual([c.id]);
    const at = String(cRow.createdAt);
    expect(ids(await list('--created-from', at))).toEqual([c.id]);
    expect(ids(await list('--created-to', new Date(cRow.createdAt).toISOString()))).toEqual(
      [a.id, b.id].sort(),
    );
  });

  it('narrows a bulk form by queue, name and tenant', async () => {
    const { driver } = target.backend;
    const tenant = uuidv7();
    const rows = [
      request('x-list.bulk', tenant),
      request('x-list.bulk', null),
      request('x-list.other', tenant),
    ].map((r) => ({ ...r, queue: 'x-list-bulk', runAt: Date.now() + 3_600_000 }));
    await driver.enqueueMany(rows);
    const promoted = await x<BulkView>(
      'jobs',
      'promote',
      '--state',
      'delayed',
      '--queue',
      'x-list-bulk',
      '--name',
      'x-list.bulk',
      '--tenant',
      tenant,
      '--yes',
    );
    expect(promoted).toMatchObject({ affected: 1, remaining: 0 });
    const states = await Promise.all(rows.map(async (r) => (await driver.get(r.id))?.state));
    expect(states).toEqual(['ready', 'delayed', 'delayed']);
  });
});
