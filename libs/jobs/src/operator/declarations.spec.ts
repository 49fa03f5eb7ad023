import { job } from '../declare/job';
import { task } from '../declare/task';
import { memoryJobDriver } from '../driver/memory';
import { t } from '../schema';
import { frozenClock } from '../testing/frozen-clock';
import { thrownCode } from '../testing/test-kit';
import { collectDeclarations, inspectManifest } from './declarations';
import type { JsonValue } from '../util/json';
import { redactJson } from './redact';
import {
  inspectTask,
  inspectTasks,
  MAX_NEXT_TASK_RUNS,
  nextTaskRuns,
  pauseTask,
  resumeTask,
} from './tasks';

let seq = 0;
function declare() {
  seq += 1;
  const send = job({
    input: t.object({ to: t.string }),
    idempotencyKey: ({ to }) => to,
    tenant: 'none',
    queue: 'mail',
    retry: { attempts: 4 },
    redact: ['to'],
  });
  const digest = task({
    name: `digest.${seq}`,
    cron: '0 9 * * *',
    tz: 'UTC',
    enqueue: () => [[send, { to: 'a@example.test' }]],
  });
  return { send, digest };
}

describe('inspectManifest and collectDeclarations', () => {
  it('collects exported handles (top level, in objects and arrays) and stamps unnamed jobs with their export names', () => {
    const { send, digest } = declare();
    const name = `sendMail${seq}`;
    const found = collectDeclarations({ [name]: send, tasks: [digest], other: 42 });
    expect(found.jobs).toEqual([send]);
    expect(found.tasks).toEqual([digest]);
    expect(send.name).toBe(name);

    const manifest = inspectManifest(found);
    expect(manifest.jobs).toEqual([
      expect.objectContaining({
        name,
        queue: 'mail',
        retry: expect.objectContaining({ attempts: 4 }),
        redact: ['to'],
      }),
    ]);
    expect(manifest.tasks).toEqual([
      expect.objectContaining({ name: digest.name, cron: '0 9 * * *', tz: 'UTC', jobs: [name] }),
    ]);
    expect(JSON.parse(JSON.stringify(manifest))).toEqual(manifest);
  });

  it('collects the handles one level down in an exported object, named by their key there', () => {
    const { send, digest } = declare();
    const key = `welcome${seq}`;
    const found = collectDeclarations({ mail: { [key]: send, digest } });
    expect(found.jobs).toEqual([send]);
    expect(found.tasks).toEqual([digest]);
    expect(send.name).toBe(key);
  });

  it("lists a task's jobs even when only the task was handed over", () => {
    const { send, digest } = declare();
    collectDeclarations({ [`mailOnly${seq}`]: send });
    expect(inspectManifest({ jobs: [], tasks: [digest] }).jobs.map((j) => j.name)).toEqual([
      send.name,
    ]);
  });

  it('refuses a redact declaration that is not a list of dot paths', async () => {
    const bad = (redact: unknown) => () =>
      job({
        name: `bad.${(seq += 1)}`,
        input: t.object({}),
        idempotencyKey: () => 'k',
        tenant: 'none',
        redact: redact as string[],
      });
    expect(await thrownCode(bad('card.number'))).toBe('X_JOB_DECLARATION_INVALID');
    expect(await thrownCode(bad(['card..number']))).toBe('X_JOB_DECLARATION_INVALID');
    expect(await thrownCode(bad([' x']))).toBe('X_JOB_DECLARATION_INVALID');
  });
});

describe('redactJson', () => {
  it('replaces every declared path, with * over keys and indexes, and leaves the value untouched', () => {
    const value: JsonValue = {
      card: { number: '4242', cvc: '1' },
      items: [{ token: 'a' }, { token: 'b', keep: 1 }],
      n: 1,
    };
    const copy = JSON.parse(JSON.stringify(value)) as Record<string, JsonValue>;
    expect(redactJson(value, ['card.number', 'items.*.token', 'missing.path', 'n.deeper'])).toEqual(
      {
        card: { number: '[redacted]', cvc: '1' },
        items: [{ token: '[redacted]' }, { token: '[redacted]', keep: 1 }],
        n: 1,
      },
    );
    expect(redactJson(value, ['card.*'])).toEqual({
      ...value,
      card: { number: '[redacted]', cvc: '[redacted]' },
    });
    expect(value).toEqual(copy);
  });
});

describe('task projections', () => {
  it('lists declared and remembered tasks with pause flag, last fire and next run', async () => {
    const clock = frozenClock(Date.UTC(2026, 0, 1, 8, 0));
    const driver = memoryJobDriver({ clock });
    const { digest } = declare();
    const declarations = inspectManifest({ jobs: [], tasks: [digest] });
    await driver.introspect!.recordTaskFire({
      task: 'legacy.task',
      occurrenceMs: Date.UTC(2025, 11, 31),
    });

    expect(await pauseTask(driver, digest.name, { declarations })).toEqual({
      task: digest.name,
      paused: true,
    });
    const tasks = await inspectTasks(driver, { declarations, clock });
    expect(tasks).toEqual([
      {
        name: digest.name,
        declared: true,
        cron: '0 9 * * *',
        tz: 'UTC',
        catchUp: 'skip',
        jobs: declarations.jobs.map((j) => j.name),
        paused: true,
        lastFire: null,
        next: Date.UTC(2026, 0, 1, 9, 0),
      },
      expect.objectContaining({
        name: 'legacy.task',
        declared: false,
        cron: null,
        next: null,
        lastFire: expect.objectContaining({ occurrenceMs: Date.UTC(2025, 11, 31) }),
      }),
    ]);
    await resumeTask(driver, digest.name, { declarations });
    expect((await inspectTask(driver, digest.name, { declarations, clock })).paused).toBe(false);
    expect(await thrownCode(() => inspectTask(driver, 'nobody', { declarations, clock }))).toBe(
      'X_TASK_NOT_FOUND',
    );
    expect(await thrownCode(() => nextTaskRuns(declarations, 'nobody', { clock }))).toBe(
      'X_TASK_NOT_FOUND',
    );
    expect(nextTaskRuns(declarations, digest.name, { clock, count: 2 })).toEqual([
      Date.UTC(2026, 0, 1, 9, 0),
      Date.UTC(2026, 0, 2, 9, 0),
    ]);
    // each occurrence is resolved on the event loop: a count of a million held it for minutes, NaN and 0 answered []
    expect(
      nextTaskRuns(declarations, digest.name, { clock, count: MAX_NEXT_TASK_RUNS }),
    ).toHaveLength(MAX_NEXT_TASK_RUNS);
    for (const count of [MAX_NEXT_TASK_RUNS + 1, 1_000_000, 0, 1.5, Number.NaN]) {
      expect([
        count,
        await thrownCode(() => nextTaskRuns(declarations, digest.name, { clock, count })),
      ]).toEqual([count, 'X_VALUE_INVALID']);
    }
    await driver.close();
  });
  it('pauses or resumes only a task something knows: declared, fired or paused — else X_TASK_NOT_FOUND, nothing moved', async () => {
    const clock = frozenClock(Date.UTC(2026, 0, 1, 8, 0));
    const driver = memoryJobDriver({ clock });
    const introspect = driver.introspect!;
    const { digest } = declare();
    const declarations = inspectManifest({ jobs: [], tasks: [digest] });
    const paused = () => introspect.pausedTasks();

    // a misspelt name, with or without the declarations: refused before anything is paused
    for (const options of [{}, { declarations }]) {
      const error = await pauseTask(driver, `${digest.name}x`, options).catch((e: unknown) => e);
      expect(error).toMatchObject({ code: 'X_TASK_NOT_FOUND', meta: { task: `${digest.name}x` } });
      expect((error as Error).message).toContain(`"${digest.name}x"`);
      expect(await thrownCode(() => resumeTask(driver, `${digest.name}x`, options))).toBe(
        'X_TASK_NOT_FOUND',
      );
    }
    expect(await paused()).toEqual([]);
    // declared but never fired: known only from the declarations
    expect(await thrownCode(() => pauseTask(driver, digest.name))).toBe('X_TASK_NOT_FOUND');
    await pauseTask(driver, digest.name, { declarations });
    expect(await paused()).toEqual([digest.name]);
    // paused, it is remembered: resumed without the declarations, and resumed again (idempotent) with them
    await resumeTask(driver, digest.name);
    await resumeTask(driver, digest.name, { declarations });
    expect(await paused()).toEqual([]);
    // a task the backend saw fire is known without the declarations
    await introspect.recordTaskFire({ task: 'legacy.task', occurrenceMs: Date.UTC(2025, 11, 31) });
    await pauseTask(driver, 'legacy.task');
    expect(await paused()).toEqual(['legacy.task']);
    await resumeTask(driver, 'legacy.task');
    // force: a name nothing knows yet (a release not yet deployed) is paused all the same
    await pauseTask(driver, 'coming.task', { force: true });
    expect(await paused()).toEqual(['coming.task']);
    await resumeTask(driver, 'coming.task', { force: true });
    // a name no backend could hold is X_VALUE_INVALID, whatever force says
    expect(await thrownCode(() => pauseTask(driver, '', { force: true }))).toBe('X_VALUE_INVALID');
    expect(await thrownCode(() => resumeTask(driver, 'x'.repeat(129)))).toBe('X_VALUE_INVALID');
    expect(await paused()).toEqual([]);
    await driver.close();
  });
});
