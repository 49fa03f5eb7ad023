/**
 * Scenario 7 — bad input, on memory, PostgreSQL and Redis, against a live worker process: a table of malformed, huge,
 * deeply nested and NUL-bearing payloads, bad keys, queues, times, cron expressions and zones, each answered by its
 * coded error at the call (or stored exactly, as the value contract says of a NUL inside a payload); rows whose
 * stored input the spec corrupts in the database / Redis; rows of a job name nobody serves; a 30-day delay, a run
 * time in 2100 and a 40-day sleep (past setTimeout's 2^31 - 1 ms). Nothing lost, no worker crashed: the process keeps
 * running and serves the good jobs enqueued before and after the bad input.
 */
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { createChaosRun, type ChaosRun } from '../../harness/drivers';
import { ChaosProcess } from '../../harness/processes';
import { recordChaos } from '../../harness/report';
import { sized } from '../../harness/size';
import { truthSpec } from '../../harness/truth-spec';
import { until } from '../../harness/wait';
import type { BadInputConfig } from './bad-input-app';
import type { CaseResult } from './bad-input-table';
import { badInputInvariants, type SeededIds, type SeenRow } from './bad-input-verdict';

const GOODS = sized({ full: 2_000, ci: 100 });
const FRAGILE = 3;
const TIMEOUT = sized({ full: 600_000, ci: 90_000 });

type Row = SeenRow;
interface Seeded {
  readonly cases: CaseResult[];
  readonly ids: SeededIds;
}

const truth = truthSpec();

describe.each(['memory', 'pg', 'redis'] as const)('scenario 7: bad input on %s', (driverName) => {
  let run: ChaosRun | undefined;
  let app: ChaosProcess | undefined;
  afterAll(async () => {
    await app?.kill('SIGKILL');
    await run?.drop();
  });

  it(
    'answers every bad input with its coded error, loses nothing and keeps the worker serving',
    async () => {
      run = driverName === 'memory' ? undefined : await createChaosRun(driverName, truth.db);
      const runId = run?.id ?? `memory_${randomBytes(5).toString('hex')}`;
      const config: BadInputConfig = {
        target: run?.target ?? { driver: 'memory' },
        truthUrl: truth.db.url,
        run: runId,
        goods: GOODS,
        fragile: FRAGILE,
      };
      app = new ChaosProcess({
        entry: join(__dirname, 'bad-input-app.ts'),
        args: [JSON.stringify(config)],
        label: `bad-input-${driverName}`,
      });
      await app.start();
      const proc = app;
      const seeded = (await proc.request('seed', 60_000)) as unknown as Seeded;
      await corrupt(run, seeded.ids.fragile);
      const more = ((await proc.request('more', 60_000)) as unknown as { ids: string[] }).ids;
      const goods = [...seeded.ids.before, ...more];
      const echo = seeded.cases.find((c) => c.expect === 'stored')?.id;
      const rows = async (ids: readonly string[]): Promise<(Row | null)[]> =>
        ((await proc.request('rows', 30_000, { ids })) as unknown as { rows: (Row | null)[] }).rows;

      // settled: every good job and the echo ran, the fragile rows are finished — or the bound passed
      const settled = async (): Promise<boolean> => {
        const ran = await effects(runId);
        const fragile = await rows(seeded.ids.fragile);
        return (
          goods.every((id) => ran.has(`${id}/good`)) &&
          (echo === undefined || ran.has(`${echo}/intact`) || ran.has(`${echo}/changed`)) &&
          fragile.every((r) => r !== null && ['dead', 'failed', 'done'].includes(r.state))
        );
      };
      await until(settled, {
        what: 'the jobs to settle',
        timeoutMs: sized({ full: 120_000, ci: 30_000 }),
        everyMs: 250,
      }).catch(() => undefined);

      const ran = await effects(runId);
      const [far, [sleeper], ghost, fragile] = await Promise.all([
        rows(seeded.ids.far),
        rows([seeded.ids.sleeper]),
        rows(seeded.ids.ghost),
        rows(seeded.ids.fragile),
      ]);
      const status = (await proc.request('status')) as unknown as {
        overflows: number;
        events: Record<string, number>;
      };
      for (const c of seeded.cases.filter((x) => x.got !== x.expect))
        process.stdout.write(`  wrong answer: ${c.name}: expected ${c.expect}, got ${c.got}\n`);
      const invariants = badInputInvariants({
        ...{ cases: seeded.cases, ids: seeded.ids, goods, ran, far, sleeper, ghost, fragile },
        ...{ overflows: status.overflows, alive: proc.alive },
      });
      const exit = await proc.shutdown();
      invariants['worker process exits'] =
        (invariants['worker process exits'] ?? 0) + (exit === 0 ? 0 : 1);
      recordChaos({
        scenario: '7 bad input',
        driver: driverName,
        volume: `${seeded.cases.length} bad-input cases, ${FRAGILE} corrupted rows, 3 unknown-name rows, 3 timers past 24.8 days, ${goods.length} good jobs`,
        faults: [
          driverName === 'memory'
            ? 'rows written under the driver with refused inputs'
            : driverName === 'pg'
              ? 'stored input corrupted in x_jobs'
              : 'stored input corrupted in the row hash (one not JSON)',
        ],
        invariants,
        figures: {
          events: JSON.stringify(status.events),
        },
      });
      expect(invariants).toEqual(Object.fromEntries(Object.keys(invariants).map((k) => [k, 0])));
    },
    TIMEOUT,
  );
});

/** Each `<job id>/<what>` the bodies recorded for `run`, with how many times. */
async function effects(run: string): Promise<Map<string, number>> {
  const { rows } = await truth.db.pool.query<{ job_id: string; step: string; n: number }>(
    `select job_id, step, count(*)::int as n from chaos_truth where run = $1 and kind = 'effect' group by 1, 2`,
    [run],
  );
  return new Map(rows.map((r) => [`${r.job_id}/${r.step}`, r.n]));
}

/**
 * Corrupts the stored input of `ids` where the driver keeps it: to a JSON value the job's schema refuses (the row an
 * older build wrote, or a hand edit) — PostgreSQL's `json` column holds only JSON text — and on Redis the first row's
 * to text that is not JSON at all. Memory: written so by the app.
 */
async function corrupt(run: ChaosRun | undefined, ids: readonly string[]): Promise<void> {
  if (run === undefined) return;
  if (run.target.driver === 'pg') {
    await truth.db.pool.query(
      `update ${run.target.schema}.x_jobs set input = '{"n":"corrupt"}'::json where id = any($1::uuid[])`,
      [ids],
    );
    return;
  }
  await onRedis(run, async (client) => {
    for (const [i, id] of ids.entries()) {
      const text = i === 0 ? '{"n": corrupt, not JSON' : '{"n":"corrupt"}';
      await client.hset(`{${run.target.prefix}}:j:${id}`, 'input', text);
    }
  });
}

async function onRedis<T>(run: ChaosRun, fn: (client: Redis) => Promise<T>): Promise<T> {
  const client = new Redis(run.target.url, { maxRetriesPerRequest: 3 });
  try {
    return await fn(client);
  } finally {
    await client.quit();
  }
}
