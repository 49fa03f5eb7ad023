import type { BulkPreviewView, BulkView, JobSummaryView, QueueView } from '@ultimat3/jobs';
import type { XRun } from './run-x';
import type { XWorld } from './target';

/** The scenario's `x` against its world: the world once opened, and `x` / `x --json` with the world's flags. */
export interface XCli {
  readonly world: () => XWorld;
  readonly x: (...args: string[]) => Promise<XRun>;
  readonly xj: <T>(...args: string[]) => Promise<T>;
}

/** The bulk forms of `x jobs retry / promote / delete`: dry runs, `--yes`, the 1,000-row cap, and refusals. */
export function xCliBulkCases({ world, x, xj }: XCli): void {
  it('requeues 2,500 dead rows in three bulk calls, after a dry run that changes nothing', async () => {
    await world().seedDead('x-cli-bulk', 2_500);
    const dry = await xj<BulkPreviewView & { dryRun: boolean }>(
      'jobs',
      'retry',
      '--state',
      'dead',
      '--queue',
      'x-cli-bulk',
    );
    expect(dry).toMatchObject({ dryRun: true, action: 'requeue', matched: 200, more: true });
    const depth = async () =>
      (await xj<QueueView[]>('queues', 'list')).find((q) => q.queue === 'x-cli-bulk');
    expect(await depth()).toMatchObject({ dead: 2_500, ready: 0 });

    const calls: [number, number][] = [];
    for (let i = 0; i < 3; i += 1) {
      const view = await xj<BulkView>(
        'jobs',
        'retry',
        '--state',
        'dead',
        '--queue',
        'x-cli-bulk',
        '--yes',
      );
      calls.push([view.affected, view.remaining]);
    }
    expect(calls).toEqual([
      [1_000, 1_500],
      [1_000, 500],
      [500, 0],
    ]);
    expect(await depth()).toMatchObject({ dead: 0, ready: 2_500 });
  });

  it('promotes and deletes one job; a bulk delete prints what it would do until --yes', async () => {
    const [delayed] = await world().seedDelayed('x-cli-one', 1);
    expect(await xj<JobSummaryView>('jobs', 'promote', delayed!)).toMatchObject({
      id: delayed,
      state: 'ready',
    });
    const deleted = await x('jobs', 'delete', delayed!);
    expect([deleted.code, deleted.stdout.trim()]).toEqual([0, `deleted ${delayed}`]);
    expect(await world().driver.get(delayed!)).toBeUndefined();

    const [kept] = await world().seedDead('x-cli-delete', 1);
    const dry = await x('jobs', 'delete', '--state', 'dead', '--queue', 'x-cli-delete');
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain('dry run: remove would cover 1 dead row(s); nothing changed.');
    expect(dry.stdout).toContain(kept);
    expect(dry.stdout).toContain('add --yes to do it');
    expect((await world().driver.get(kept!))?.state).toBe('dead');
    expect(
      await xj<BulkView>('jobs', 'delete', '--state', 'dead', '--queue', 'x-cli-delete', '--yes'),
    ).toMatchObject({ action: 'remove', affected: 1, remaining: 0 });
    expect(await world().driver.get(kept!)).toBeUndefined();
  });

  it('a bulk dry run the call would refuse is refused alike: no "add --yes" for a call --yes cannot make', async () => {
    const [ready] = await world().seedReady('x-cli-dry-refused', 1);
    for (const [verb, state, code] of [
      ['retry', 'ready', 'X_JOB_NOT_REQUEUEABLE'],
      ['promote', 'dead', 'X_JOB_NOT_PROMOTABLE'],
    ] as const) {
      const args = ['jobs', verb, '--state', state, '--queue', 'x-cli-dry-refused'];
      const dry = await x(...args);
      const done = await x(...args, '--yes');
      expect([dry.code, done.code]).toEqual([1, 1]);
      expect(dry.stderr).toContain(code);
      expect(done.stderr).toContain(code);
      expect(dry.stdout).toBe('');
    }
    expect((await world().driver.get(ready!))?.state).toBe('ready');
  });
}
