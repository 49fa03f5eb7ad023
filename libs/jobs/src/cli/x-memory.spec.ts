import { join } from 'node:path';
import type { EnqueueRequest } from '../driver/job-driver';
import { claimOf, type ClaimedJob } from '../driver/job-row';
import { memoryBackend } from '../driver/memory/memory-backend';
import type { JobView } from '../operator/job-views';
import type { StatsView } from '../operator/queues';
import { frozenClock } from '../testing/frozen-clock';
import { enqueueRequest } from '../../test/requests';
import type { CliBackend, PeerLoaders } from './connect';
import { runX } from './program';

/** The repository root: `--app` is read from it, as the spawned specs run `x` there. */
const ROOT = join(__dirname, '..', '..', '..', '..');
const APP = 'libs/jobs/test/x-cli/app.ts';
/** Two backfills (one gated on a migration); `x db backfill` gates and enqueues them, nothing sweeps here. */
const BACKFILL_APP = 'libs/jobs-pg/test/backfill-app.ts';
const HOUR = 3_600_000;

/**
 * `x` run in process over the memory backend, handed in through the peer loaders as `--url postgres://…` would load
 * `@ultimat3/jobs-pg`, on a frozen clock: what a command prints and answers, where the spawned scenario cannot
 * steer the time or count the closes.
 */
describe('x in process over the memory backend', () => {
  const clock = frozenClock();
  const backend = memoryBackend({ clock });
  const { driver } = backend;
  let opens = 0;
  let closes = 0;
  const opened: CliBackend = {
    driver,
    backfills: backend.backfills,
    close: () => {
      closes += 1;
      return Promise.resolve();
    },
  };
  const loaders: PeerLoaders = {
    postgres: () => ({
      postgresBackend: () => {
        opens += 1;
        return Promise.resolve(opened);
      },
    }),
    redis: () => ({}),
  };
  afterAll(() => backend.close());

  const x = async (...argv: string[]) => {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runX([...argv, '--url', 'postgres://memory/x'], {
      env: {},
      cwd: ROOT,
      streams: { out: (s) => out.push(s), err: (s) => err.push(s) },
      clock,
      loaders,
    });
    return { code, out: out.join('\n'), err: err.join('\n') };
  };
  const xj = async <T>(...argv: string[]): Promise<T> => {
    const run = await x(...argv, '--json');
    if (run.code !== 0) throw new Error(`x ${argv.join(' ')} exited ${run.code}: ${run.err}`);
    return JSON.parse(run.out) as T;
  };

  /** A request due at once on the frozen clock (the builder's default run time is the wall clock's now). */
  const due = (overrides: Partial<EnqueueRequest>) => enqueueRequest({ runAt: 0, ...overrides });

  /** A row of `queue` (and a job name alike) run to done now: claimed and acked on the memory driver. */
  async function doneRow(queue: string): Promise<string> {
    const { id } = await driver.enqueue(due({ queue, name: queue }));
    const claimed = await claimOne(queue);
    expect(await driver.ack(id, { ...claimOf(claimed), durationMs: 5 })).toBe(true);
    return id;
  }

  /** Claims the one due row of `queue`: it is running. */
  async function claimOne(queue: string): Promise<ClaimedJob> {
    const [claimed] = await driver.claim({
      workerId: 'x-memory',
      slots: [{ queue, limit: 1 }],
      visibilityTimeoutMs: 60_000,
    });
    return claimed!;
  }

  it('refuses an id beside a narrowing bulk flag with exit 2, and moves nothing', async () => {
    const id = await doneRow('x-memory-one');
    for (const verb of ['retry', 'promote', 'delete']) {
      for (const flag of ['--queue', '--name', '--tenant']) {
        const run = await x('jobs', verb, id, flag, 'v');
        expect([verb, flag, run.code, run.err]).toEqual([
          verb,
          flag,
          2,
          expect.stringContaining('takes an id OR bulk flags'),
        ]);
      }
    }
    expect((await driver.get(id))?.state).toBe('done');
  });

  it("shows a step's stored output only when --outputs asks for it", async () => {
    const { id } = await driver.enqueue(due({ queue: 'x-memory-show', name: 'x-memory.show' }));
    const claimed = await claimOne('x-memory-show');
    const step = { name: 'mint', output: { token: 'tok-x-memory' }, attempt: 1 };
    const at = clock.now();
    expect(
      await driver.steps.save(id, claimOf(claimed), { ...step, startedAt: at, completedAt: at }),
    ).toBe(true);
    const hidden = await xj<JobView>('jobs', 'show', id);
    expect(hidden.steps).toEqual([expect.objectContaining({ name: 'mint', hasOutput: true })]);
    expect(JSON.stringify(hidden)).not.toContain('tok-x-memory');
    const human = await x('jobs', 'show', id);
    expect([human.out.includes('(stored; --outputs)'), human.out.includes('tok-x-memory')]).toEqual(
      [true, false],
    );
    const shown = await xj<JobView>('jobs', 'show', id, '--outputs');
    expect(shown.steps[0]?.output).toEqual({ token: 'tok-x-memory' });
  });

  it('cancels a live job, keeping the --reason on the row', async () => {
    const { id } = await driver.enqueue(due({ queue: 'x-memory-cancel', name: 'x-memory.cancel' }));
    const run = await x('jobs', 'cancel', id, '--reason', 'runaway loop');
    expect([run.code, run.out]).toEqual([0, `cancelled ${id} (x-memory.cancel): cancelled`]);
    expect(await driver.get(id)).toMatchObject({ state: 'cancelled', lastError: 'runaway loop' });
  });

  it("answers the row a cancel, promote, retry or bulk preview moved with --app's redaction, as show does", async () => {
    const card = '4111222233334444';
    /** A row of the app's x-cli.steps backing off after an attempt that wrote the card into its error text. */
    const backingOff = async (order: string): Promise<string> => {
      const input = { order, card: { number: card, last4: '4444' } };
      const { id } = await driver.enqueue(
        due({ name: 'x-cli.steps', queue: 'x-cli-redact', input, idempotencyKey: order }),
      );
      const claimed = await claimOne('x-cli-redact');
      const error = `card ${card} declined by the issuer`;
      const retry = { kind: 'retry', runAt: clock.now() + HOUR, error } as const;
      expect(await driver.nack(id, { ...claimOf(claimed), ...retry })).toBe(true);
      return id;
    };
    const [a, b] = [await backingOff('x-redact-a'), await backingOff('x-redact-b')];
    const answers = [
      await xj('jobs', 'promote', '--state', 'delayed', '--queue', 'x-cli-redact', '--app', APP),
      await xj('jobs', 'promote', a, '--app', APP),
      await xj('jobs', 'cancel', b, '--app', APP),
      await xj('jobs', 'retry', b, '--app', APP),
    ];
    for (const answer of answers) expect(JSON.stringify(answer)).not.toContain(card);
    expect(JSON.stringify(answers[1])).toContain('card [redacted] declined');
    // without the app's declarations the row is answered as written (and says so nowhere else)
    expect(JSON.stringify(await xj('jobs', 'cancel', a))).toContain(card);
  });

  it('counts the settles of the last 24 hours when no --since is given', async () => {
    await doneRow('x-memory-stats');
    await clock.advance(2 * HOUR);
    const recent = await xj<StatsView>('jobs', 'stats');
    expect(recent.sinceMs).toBe(clock.now() - 24 * HOUR);
    expect(recent.totals.find((t) => t.job === 'x-memory-stats')).toMatchObject({ done: 1 });
    await clock.advance(23 * HOUR);
    const stale = await xj<StatsView>('jobs', 'stats');
    expect(stale.totals.find((t) => t.job === 'x-memory-stats')).toBeUndefined();
  });

  it("answers a task's one next occurrence by the clock when no --count is given", async () => {
    const at = clock.now();
    const { next } = await xj<{ next: number[] }>('tasks', 'next', 'x-cli.nightly', '--app', APP);
    const day = at - (at % (24 * HOUR));
    const three = day + 3 * HOUR > at ? day + 3 * HOUR : day + 27 * HOUR;
    expect(next).toEqual([three]);
  });

  it('refuses a --count past MAX_NEXT_TASK_RUNS as a usage error, before resolving any', async () => {
    const run = await x('tasks', 'next', 'x-cli.nightly', '--app', APP, '--count', '1000000');
    expect(run.code).toBe(2);
    expect(run.err).toContain('at most 100');
  });

  it('prints the next page as the command with the same filters', async () => {
    const requests = [1, 2].map(() =>
      due({ queue: 'x-memory-page', name: 'x-memory.page', tenantId: 'acme' }),
    );
    await driver.enqueueMany(requests);
    const filters = ['--state', 'ready', '--queue', 'x-memory-page', '--name', 'x-memory.page'];
    const run = await x('jobs', 'list', ...filters, '--tenant', 'acme', '--limit', '1');
    expect(run.code).toBe(0);
    const newest = [...requests.map((r) => r.id)].sort().reverse();
    expect(run.out).toContain(
      `next page: x jobs list ${filters.join(' ')} --tenant acme --limit 1 --after ${newest[0]}`,
    );
  });

  it('refuses a backfill ledger status it does not know with exit 2, naming the ones it does', async () => {
    const run = await x('db', 'backfill', '--list', '--status', 'complete');
    expect([run.code, run.err]).toEqual([2, expect.stringContaining('running, completed, failed')]);
    expect(await xj<unknown[]>('db', 'backfill', '--list', '--status', 'completed')).toEqual([]);
  });

  it("refuses a ledger --limit that is not a whole number of at least 1 with exit 2, as every command's --limit", async () => {
    for (const limit of ['ten', '0', '2.5', '1001']) {
      const bad = await x('db', 'backfill', '--list', '--limit', limit);
      expect([limit, bad.code, bad.err]).toEqual([
        limit,
        2,
        expect.not.stringContaining('X_INVARIANT'),
      ]);
    }
    expect(await xj<unknown[]>('db', 'backfill', '--list', '--limit', '1000')).toEqual([]);
  });

  it('refuses a jobs list --limit past the page the store answers with exit 2, and takes the largest', async () => {
    const bad = await x('jobs', 'list', '--limit', '201');
    expect([bad.code, bad.err]).toEqual([2, expect.stringContaining('at most 200')]);
    expect((await x('jobs', 'list', '--limit', '200')).code).toBe(0);
  });

  it('closes the backend it opened once the command answered, and answers dead letters with exit 3', async () => {
    const before = closes;
    expect((await x('queues', 'list')).code).toBe(0);
    expect(closes).toBe(before + 1);
    const { id } = await driver.enqueue(
      due({ queue: 'x-memory-dlq', name: 'x-memory.dead', maxAttempts: 1 }),
    );
    const claimed = await claimOne('x-memory-dlq');
    await driver.nack(id, { ...claimOf(claimed), kind: 'dead', error: 'X_BOOM: no' });
    expect((await driver.get(id))?.state).toBe('dead');
    expect((await x('jobs', 'dead', '--queue', 'x-memory-dlq', '--fail-if-any')).code).toBe(3);
    expect((await x('jobs', 'dead', '--queue', 'x-memory-none', '--fail-if-any')).code).toBe(0);
    expect(closes).toBe(before + 3);
  });

  it('opens the backend once for a command that reads it many times, and closes it once', async () => {
    const [opened0, closed0] = [opens, closes];
    const run = await x('db', 'backfill', 'x-app-slugs', '--write', '--app', BACKFILL_APP);
    expect([run.code, run.out]).toEqual([0, expect.stringContaining('enqueued x-app-slugs')]);
    expect([opens - opened0, closes - closed0]).toEqual([1, 1]);
  });
});
