import { memoryJobDriver } from '../driver/memory';
import { errorCodeOf } from '../errors/jobs-error';
import { t } from '../schema';
import { frozenClock } from '../testing/frozen-clock';
import { setJobsFacade } from './ambient';
import { directJobsFacade } from './direct-facade';
import { job } from './job';
import { stampTaskExportNames, task, type TaskDefinition } from './task';

const tick = job({
  name: 'task-spec.tick',
  input: t.object({ occurrenceMs: t.number.int() }),
  idempotencyKey: ({ occurrenceMs }) => `tick:${occurrenceMs}`,
  tenant: 'none',
});
const report = job({
  name: 'task-spec.report',
  queue: 'reports',
  input: t.object({ day: t.string }),
  idempotencyKey: ({ day }) => `report:${day}`,
  tenant: 'none',
});

let n = 0;
const unique = (): string => `task-spec-${++n}`;
const base = (): TaskDefinition => ({
  name: unique(),
  cron: '0 3 * * *',
  tz: 'UTC',
  enqueue: (occurrenceMs) => [[tick, { occurrenceMs }]],
});

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    return errorCodeOf(error);
  }
  return undefined;
}

describe('task() refuses a bad declaration where it is written', () => {
  it.each([
    ['a zone that is not an IANA name', { tz: 'Bogota' }],
    ['a missing zone (a JS caller)', { tz: undefined }],
    ['an empty zone', { tz: '' }],
    ['a malformed expression', { cron: 'every day' }],
    ['a step of zero', { cron: '*/0 * * * *' }],
    ['an out-of-range field', { cron: '0 25 * * *' }],
    ['a year field', { cron: '0 0 0 1 1 * 2030' }],
    ['an empty expression', { cron: ' ' }],
    ['a missing enqueue', { enqueue: undefined }],
    ['an enqueue that is not a function', { enqueue: [[tick, { occurrenceMs: 0 }]] }],
    ['an unknown catchUp', { catchUp: 'latest' }],
    ['a maxCatchUp of 0', { maxCatchUp: 0 }],
    ['a fractional maxCatchUp', { maxCatchUp: 1.5 }],
    ['an illegal name', { name: 'nightly digest' }],
  ])('refuses %s with X_JOB_DECLARATION_INVALID', (_label, override) => {
    const def = { ...base(), ...override } as unknown as TaskDefinition;
    expect(codeOf(() => task(def))).toBe('X_JOB_DECLARATION_INVALID');
  });

  it('names the zone it meant when a city is given without its region', () => {
    expect(() => task({ ...base(), tz: 'Bogota' })).toThrow(/America\/Bogota/);
  });

  it.each(['0 0 31 2 *', '0 0 30 2 *', '0 0 31 4,6,9,11 *', '0 0 0 31 2 *', '0 0 29 2 +1'])(
    'refuses the impossible %s quickly',
    (cron) => {
      const started = Date.now();
      expect(codeOf(() => task({ ...base(), cron }))).toBe('X_JOB_DECLARATION_INVALID');
      expect(Date.now() - started).toBeLessThan(500);
    },
  );

  it('accepts sparse but real dates, 6-field expressions and nicknames', () => {
    for (const cron of ['0 0 29 2 *', '*/5 * * * * *', '@daily', '0 0 L * *', '0 9 * * MON-FRI']) {
      expect(task({ ...base(), cron }).cron).toBe(cron);
    }
  });

  it('accepts UTC and every zone of the runtime database', () => {
    for (const tz of ['UTC', 'America/New_York', 'Europe/Berlin', 'Asia/Kolkata']) {
      expect(task({ ...base(), tz }).tz).toBe(tz);
    }
  });

  it('refuses two declarations of one name with X_JOB_DUPLICATE', () => {
    const name = unique();
    task({ ...base(), name });
    expect(codeOf(() => task({ ...base(), name }))).toBe('X_JOB_DUPLICATE');
  });

  it('keeps tasks and jobs in separate name spaces', () => {
    expect(task({ ...base(), name: 'task-spec.tick' }).name).toBe('task-spec.tick');
  });
});

describe('a task handle', () => {
  it('describes itself as JSON, naming its jobs in declaration order, each once', () => {
    const digest = task({
      name: unique(),
      cron: '30 1 * * *',
      tz: 'Europe/Berlin',
      catchUp: 'run-once',
      maxCatchUp: 3,
      enqueue: (occurrenceMs) => [
        [report, { day: new Date(occurrenceMs).toISOString().slice(0, 10) }],
        [tick, { occurrenceMs }],
        [report, { day: 'yesterday' }],
      ],
    });
    expect(JSON.parse(JSON.stringify(digest.describe()))).toEqual({
      kind: 'task',
      name: digest.name,
      cron: '30 1 * * *',
      tz: 'Europe/Berlin',
      catchUp: 'run-once',
      maxCatchUp: 3,
      jobs: ['task-spec.report', 'task-spec.tick'],
    });
  });

  it('defaults catchUp to skip and maxCatchUp to 10', () => {
    expect(task(base()).describe()).toMatchObject({ catchUp: 'skip', maxCatchUp: 10 });
  });

  it('answers its entries for an occurrence, synchronously', () => {
    const entries = task(base()).entries(1_000);
    expect(entries).toEqual([[tick, { occurrenceMs: 1_000 }]]);
  });

  it('refuses entries that are not [job, input] pairs, and an async enqueue', () => {
    const notHandle = task({ ...base(), enqueue: () => [[{ name: 'x' }, {}]] as never });
    expect(codeOf(() => notHandle.entries(0))).toBe('X_JOB_DECLARATION_INVALID');
    const asynchronous = task({
      ...base(),
      enqueue: (async () => [[tick, { occurrenceMs: 0 }]]) as never,
    });
    expect(codeOf(() => asynchronous.describe())).toBe('X_JOB_DECLARATION_INVALID');
  });

  it('names the task when its enqueue throws as describe() names its jobs; the throw is the cause', () => {
    const bug = new RangeError('Invalid time value');
    const throwing = task({
      ...base(),
      enqueue: () => {
        throw bug;
      },
    });
    let thrown: unknown;
    try {
      throwing.describe();
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toMatchObject({
      code: 'X_JOB_DECLARATION_INVALID',
      meta: { task: throwing.name, field: 'enqueue(occurrenceMs)' },
      cause: bug,
    });
    expect((thrown as Error).message).toContain(`"${throwing.name}"`);
    expect((thrown as Error).message).toContain('Invalid time value');
    // entries() itself, as the scheduler's fire calls it, still throws the task's own error (logged with its stack)
    expect(() => throwing.entries(0)).toThrow(bug);
  });

  it('fires every entry now through each job, one result per entry, with the jobs’ own keys', async () => {
    const clock = frozenClock(Date.UTC(2026, 2, 1, 12));
    const driver = memoryJobDriver({ clock });
    const uninstall = setJobsFacade(directJobsFacade({ driver, clock }));
    try {
      const both = task({
        ...base(),
        enqueue: (occurrenceMs) => [
          [tick, { occurrenceMs }],
          [report, { day: '2026-03-01' }],
        ],
      });
      const results = await both.enqueue();
      expect(results).toHaveLength(2);
      const rows = await Promise.all(results.map((r) => driver.get(r.id)));
      expect(rows.map((r) => [r?.name, r?.queue, r?.idempotencyKey, r?.input])).toEqual([
        ['task-spec.tick', 'default', `tick:${clock.now()}`, { occurrenceMs: clock.now() }],
        ['task-spec.report', 'reports', 'report:2026-03-01', { day: '2026-03-01' }],
      ]);
      const again = await both.enqueue({ occurrenceMs: clock.now() });
      expect(again.map((r) => r.deduped)).toEqual([true, true]);
    } finally {
      uninstall();
    }
  });

  it('builds the entries for the occurrence given, and hands every job the enqueue options', async () => {
    const clock = frozenClock(Date.UTC(2026, 2, 1, 12));
    const driver = memoryJobDriver({ clock });
    const uninstall = setJobsFacade(directJobsFacade({ driver, clock }));
    try {
      const occurrenceMs = Date.UTC(2026, 2, 1, 3);
      const [fired] = await task(base()).enqueue({ occurrenceMs, delay: '1m', priority: 7 });
      expect(await driver.get(fired?.id ?? '')).toMatchObject({
        idempotencyKey: `tick:${occurrenceMs}`,
        input: { occurrenceMs },
        runAt: clock.now() + 60_000,
        priority: 7,
      });
    } finally {
      uninstall();
    }
  });

  it('is X_DRIVER_UNAVAILABLE with no facade, never a silently dropped fire', async () => {
    await expect(task(base()).enqueue()).rejects.toMatchObject({ code: 'X_DRIVER_UNAVAILABLE' });
  });
});

describe('export names', () => {
  it('stamps the export name on an unnamed task, never on a named one', () => {
    const anonymous = task({ ...base(), name: undefined });
    expect(anonymous.name).toMatch(/^anonymous-task-\d+$/);
    const named = task(base());
    const before = named.name;
    expect(stampTaskExportNames({ pollFleet: anonymous, other: named, notATask: 1 })).toEqual([
      anonymous,
      named,
    ]);
    expect(anonymous.name).toBe('pollFleet');
    expect(named.name).toBe(before);
  });

  it('refuses one task exported under two names, and an export name another task holds', () => {
    const twice = task({ ...base(), name: undefined });
    twice.stampExportName('exportedOnce');
    expect(codeOf(() => twice.stampExportName('exportedTwice'))).toBe('X_JOB_DUPLICATE');
    const held = task({ ...base(), name: 'held-task-name' });
    const other = task({ ...base(), name: undefined });
    expect(codeOf(() => other.stampExportName(held.name))).toBe('X_JOB_DUPLICATE');
  });
});
