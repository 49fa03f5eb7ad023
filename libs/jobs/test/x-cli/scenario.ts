import type {
  JobPageView,
  JobSummaryView,
  JobView,
  OperatorDeclarations,
  QueueView,
  StatsView,
  TaskView,
  WorkerInfo,
} from '@ultimat3/jobs';
import { until } from '../../../../test/until';
import { behaviour, xCliBlock, xCliSteps } from './app';
import { APP, runX, runXJson } from './run-x';
import { xCliBulkCases } from './bulk-cases';
import { openWorld, type XTarget, type XWorld } from './target';

const card = { number: '4242424242424242', last4: '4242' };

/** The `x` command line spawned for real against one backend: every command the issue names, every exit code. */
export function xCliScenario(label: string, open: () => Promise<XTarget>): void {
  // each test spawns up to ten `x` processes, each compiling its sources on load: seconds apiece on a loaded machine
  jest.setTimeout(180_000);
  describe(`x against ${label}`, () => {
    let w: XWorld;
    const x = (...args: string[]) => runX([...args, ...w.flags]);
    const xj = <T>(...args: string[]) => runXJson<T>([...args, ...w.flags]);

    beforeAll(async () => {
      w = await openWorld(await open());
    });
    afterAll(() => w?.close());

    it('lists a page and follows its cursor to the last page', async () => {
      const ids = await w.seedReady('x-cli-page', 5);
      // newest first is id order (UUIDv7): rows minted within one millisecond sort by their random bits
      const newest = [...ids].sort().reverse();
      const seen: string[] = [];
      let page = await xj<JobPageView>('jobs', 'list', '--queue', 'x-cli-page', '--limit', '2');
      seen.push(...page.jobs.map((j) => j.id));
      while (page.next !== null) {
        page = await xj<JobPageView>(
          'jobs',
          'list',
          '--queue',
          'x-cli-page',
          '--limit',
          '2',
          '--after',
          page.next,
        );
        seen.push(...page.jobs.map((j) => j.id));
      }
      expect(seen).toEqual(newest);

      const human = await x('jobs', 'list', '--queue', 'x-cli-page', '--limit', '2');
      expect(human.code).toBe(0);
      expect(human.stdout).toContain(newest[0]);
      expect(human.stdout).toContain(
        `next page: x jobs list --queue x-cli-page --limit 2 --after ${newest[1]}`,
      );
    });

    it("shows a dead job's step trace, retries it from a step and sees it done", async () => {
      behaviour.failC = true;
      behaviour.calls.length = 0;
      const { id } = await xCliSteps.enqueue({ order: `o-${label}`, card });
      await w.untilState(id, 'dead');

      const dead = await xj<JobView>('jobs', 'show', id, '--app', APP);
      expect(dead).toMatchObject({
        id,
        state: 'dead',
        input: { order: `o-${label}`, card: { number: '[redacted]', last4: '4242' } },
        redacted: ['card.number'],
        progress: { done: 2, total: 3, note: 'charged' },
        backfill: null,
      });
      expect(dead.failure?.message).toBe('card [redacted] declined by the issuer');
      // the failure's stack, stored with it: its first frame is step c's body in the fixture app
      expect(dead.failure?.stack).toMatch(/^ {4}at .*x-cli[/\\]app\.ts:\d+/);
      expect(dead.steps.map((s) => s.name)).toEqual(['a', 'b']);
      expect(dead.steps[0]!.durationMs).toBeGreaterThanOrEqual(15);
      const human = await x('jobs', 'show', id, '--app', APP);
      expect(human.stdout).toContain('card [redacted] declined by the issuer');
      expect(human.stdout).toContain(dead.failure!.stack!.split('\n')[0]!);
      expect(human.stdout).not.toContain(card.number);
      // the dead letters and the list scrub it alike given the app; without it they show what was written
      for (const list of [
        ['jobs', 'dead', '--queue', 'x-cli'],
        ['jobs', 'list', '--queue', 'x-cli'],
      ]) {
        const scrubbed = await xj<JobPageView>(...list, '--app', APP);
        expect(scrubbed.jobs.find((j) => j.id === id)?.lastError).toContain(
          'card [redacted] declined by the issuer',
        );
        expect(JSON.stringify(scrubbed)).not.toContain(card.number);
        expect(JSON.stringify(await xj<JobPageView>(...list))).toContain(card.number);
      }

      behaviour.failC = false;
      const requeued = await xj<JobSummaryView>('jobs', 'retry', id, '--from-step', 'b');
      expect(requeued).toMatchObject({ id, state: 'ready', attempt: 0 });
      await w.untilState(id, 'done');
      expect(behaviour.calls).toEqual(['a', 'b', 'c', 'b', 'c']);
      const done = await xj<JobView>('jobs', 'show', id);
      expect(done.state).toBe('done');
      expect(done.steps.map((s) => s.name)).toEqual(['a', 'b', 'c']);
    });

    it('cancels a running job: its body stops, its settle does not land, the row stays cancelled', async () => {
      const n = Date.now();
      const { id } = await xCliBlock.enqueue({ n });
      await w.untilState(id, 'running');
      const cancelled = await xj<JobSummaryView>('jobs', 'cancel', id, '--reason', 'runaway');
      expect(cancelled).toMatchObject({ id, state: 'cancelled' });
      await until(() => behaviour.aborted.includes(String(n)));
      await until(() => w.worker.stats().inFlight === 0);
      expect((await w.driver.get(id))?.state).toBe('cancelled');
      expect((await xj<JobView>('jobs', 'show', id)).state).toBe('cancelled');

      const again = await x('jobs', 'cancel', id);
      expect(again.code).toBe(1);
      expect(again.stderr).toContain('X_JOB_NOT_CANCELLABLE');
    });

    xCliBulkCases({ world: () => w, x, xj });

    it('pauses a queue: no claim takes its rows until it is resumed', async () => {
      // no row names the queue yet and no job of an --app is enqueued on it: refused, unless forced
      const unknown = await x('queues', 'pause', 'x-cli-paused');
      expect(unknown.code).toBe(1);
      expect(unknown.stderr).toMatch(
        /^error X_QUEUE_NOT_FOUND: .*"x-cli-paused".*\nfix: .*--force/,
      );
      expect((await xj<QueueView[]>('queues', 'list')).map((q) => q.queue)).not.toContain(
        'x-cli-paused',
      );
      expect(await xj('queues', 'pause', 'x-cli-paused', '--force')).toEqual({
        queue: 'x-cli-paused',
        paused: true,
      });
      await w.seedReady('x-cli-paused', 1);
      const claim = () =>
        w.driver.claim({
          workerId: 'x-cli-probe',
          slots: [{ queue: 'x-cli-paused', limit: 5 }],
          visibilityTimeoutMs: 60_000,
        });
      expect(await claim()).toEqual([]);
      expect(
        (await xj<QueueView[]>('queues', 'list')).find((q) => q.queue === 'x-cli-paused'),
      ).toMatchObject({
        paused: true,
        ready: 1,
      });
      await xj('queues', 'resume', 'x-cli-paused');
      expect(await claim()).toHaveLength(1);
    });

    it('lists the live worker, and what settled per job in the window', async () => {
      await until(async () =>
        (await w.driver.introspect!.workers()).some((x) => x.id === w.worker.id),
      );
      const workers = await xj<WorkerInfo[]>('jobs', 'workers');
      expect(workers.find((x) => x.id === w.worker.id)).toMatchObject({
        slots: expect.objectContaining({ 'x-cli': expect.any(Number) }),
      });
      expect((await x('jobs', 'workers')).stdout).toContain(w.worker.id);
      const stats = await xj<StatsView>('jobs', 'stats', '--since', '1h');
      expect(stats.totals.find((t) => t.job === 'x-cli.steps')).toMatchObject({ done: 1, dead: 1 });
      expect(stats.queues.find((q) => q.queue === 'x-cli')).toMatchObject({
        done: 1,
        paused: false,
      });
    });

    it('answers every documented exit code', async () => {
      expect((await x('queues', 'list')).code).toBe(0);
      // 1: the operation failed — the code and its fix are printed, as JSON with --json
      const missing = await x('jobs', 'show', '01900000-0000-7000-8000-000000000000');
      expect(missing.code).toBe(1);
      expect(missing.stderr).toMatch(/^error X_JOB_NOT_FOUND: .*\nfix: /);
      const missingJson = await x('jobs', 'show', '01900000-0000-7000-8000-000000000000', '--json');
      expect(JSON.parse(missingJson.stderr)).toMatchObject({ error: { code: 'X_JOB_NOT_FOUND' } });
      const nowhere = await runX(['jobs', 'list']);
      expect(nowhere.code).toBe(1);
      expect(nowhere.stderr).toContain('X_DRIVER_UNAVAILABLE');
      // 2: asked wrongly
      for (const args of [
        ['jobs', 'lisst'],
        ['jobs', 'list', '--state', 'nope'],
        ['jobs', 'list', '--after', 'a', '--before', 'b'],
        ['jobs', 'retry'],
        ['jobs', 'retry', '01900000-0000-7000-8000-000000000000', '--state', 'dead'],
        ['tasks', 'next', 'x-cli.nightly'],
      ]) {
        expect([args.join(' '), (await x(...args)).code]).toEqual([args.join(' '), 2]);
      }
      // 3: dead letters found by --fail-if-any; 0 where there are none
      await w.seedDead('x-cli-dlq', 1);
      expect((await x('jobs', 'dead', '--queue', 'x-cli-dlq', '--fail-if-any')).code).toBe(3);
      expect((await x('jobs', 'dead', '--queue', 'x-cli-empty', '--fail-if-any')).code).toBe(0);
      // the same storage reached through DATABASE_URL / REDIS_URL instead of --url
      const [flag, url, ...rest] = w.flags;
      expect(flag).toBe('--url');
      const variable = url!.startsWith('redis') ? 'REDIS_URL' : 'DATABASE_URL';
      const viaEnv = await runX(['queues', 'list', '--json', ...rest], { [variable]: url! });
      expect(viaEnv.code).toBe(0);
      expect(
        (JSON.parse(viaEnv.stdout) as QueueView[]).find((q) => q.queue === 'x-cli-dlq'),
      ).toMatchObject({
        dead: 1,
      });
    });

    it('states the manifest and operates tasks', async () => {
      const manifest = await xj<OperatorDeclarations>('manifest', '--app', APP);
      expect(manifest.jobs.map((j) => j.name)).toEqual(['x-cli.block', 'x-cli.steps']);
      expect(manifest.tasks).toEqual([
        expect.objectContaining({
          name: 'x-cli.nightly',
          cron: '0 3 * * *',
          jobs: ['x-cli.steps'],
        }),
      ]);

      // a task that never fired nor was paused is known only from its app: without --app, or misspelt, it is refused
      const unknown = await x('tasks', 'pause', 'x-cli.nightly');
      expect(unknown.code).toBe(1);
      expect(unknown.stderr).toMatch(
        /^error X_TASK_NOT_FOUND: .*"x-cli\.nightly".*\nfix: .*--force/,
      );
      const misspelt = await x('tasks', 'pause', 'x-cli.nighty', '--app', APP, '--json');
      expect(misspelt.code).toBe(1);
      expect(JSON.parse(misspelt.stderr)).toMatchObject({ error: { code: 'X_TASK_NOT_FOUND' } });
      expect(await xj<TaskView[]>('tasks', 'list')).toEqual([]);
      // --force pauses a name nothing knows yet (a release not yet deployed); resumed, it is remembered as paused no more
      expect(await xj('tasks', 'pause', 'x-cli.coming', '--force')).toEqual({
        task: 'x-cli.coming',
        paused: true,
      });
      expect(await xj('tasks', 'resume', 'x-cli.coming')).toEqual({
        task: 'x-cli.coming',
        paused: false,
      });
      expect((await x('tasks', 'resume', 'x-cli.coming')).code).toBe(1);

      await xj('tasks', 'pause', 'x-cli.nightly', '--app', APP);
      const [nightly] = await xj<TaskView[]>('tasks', 'list', '--app', APP);
      expect(nightly).toMatchObject({ name: 'x-cli.nightly', declared: true, paused: true });
      expect(new Date(nightly!.next!).getUTCHours()).toBe(3);
      await xj('tasks', 'resume', 'x-cli.nightly');
      expect(await xj<TaskView>('tasks', 'show', 'x-cli.nightly', '--app', APP)).toMatchObject({
        paused: false,
      });
      const next = await xj<{ next: number[] }>(
        'tasks',
        'next',
        'x-cli.nightly',
        '--app',
        APP,
        '--count',
        '2',
      );
      expect(next.next[1]! - next.next[0]!).toBe(86_400_000);
    });
  });
}
