import { setTimeout as sleep } from 'node:timers/promises';
import { SCHEDULER_LEASE_KEY } from '@ultimat3/jobs';
import { expectedOccurrences } from './cron-oracle';
import type { Episode } from './episodes';
import type { SchedulerBackend } from './scheduler-backend';
import { ask, type SchedulerSlot } from './scheduler-slots';

/** How long the run may go on past its window with no watermark moving before it is a liveness failure. */
const SETTLE_STALL_MS = 20_000;

/** Polls `check` every 20 ms until it answers true; fails after `deadlineMs`. */
export async function until(
  what: string,
  deadlineMs: number,
  check: () => Promise<boolean>,
): Promise<void> {
  const deadline = Date.now() + deadlineMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`scenario 4: not ${what} within ${deadlineMs} ms`);
    await sleep(20);
  }
}

/**
 * Per task, whether its watermark reached its last occurrence owed by `judgeEndMs`, and the watermarks as one string
 * (which moves whenever ANY task fires: a leader walking another task's backlog is progress too).
 */
async function watermarks(
  episode: Episode,
  backend: SchedulerBackend,
  armedAt: ReadonlyMap<string, number>,
  judgeEndMs: number,
): Promise<{ behind: string[]; all: string }> {
  const marks = await backend.state.load(episode.tasks.map((t) => t.name));
  const behind = episode.tasks.flatMap((t) => {
    const owed = expectedOccurrences(t.cron, t.tz, armedAt.get(t.name) ?? 0, judgeEndMs);
    const mark = marks.get(t.name) ?? -Infinity;
    return owed.length === 0 || mark >= (owed.at(-1) as number)
      ? []
      : [`${t.name} at ${new Date(mark).toISOString()}`];
  });
  return { behind, all: JSON.stringify([...marks]) };
}

/**
 * Waits until every task's watermark passed the judged end: the run's clocks go on, so a leader walks what it still
 * owes. A loaded machine walks long `run-all` backlogs slowly — one round walks up to `maxCatchUp` of EACH backlogged
 * task before the next task's turn — so this waits while any watermark moves, and fails, with what each process and
 * the server were doing, when none moved for {@link SETTLE_STALL_MS}.
 */
export async function settle(
  episode: Episode,
  slots: readonly SchedulerSlot[],
  backend: SchedulerBackend,
  armedAt: ReadonlyMap<string, number>,
  judgeEndMs: number,
): Promise<void> {
  let last = '';
  let movedAt = Date.now();
  for (;;) {
    const { behind, all } = await watermarks(episode, backend, armedAt, judgeEndMs);
    if (behind.length === 0) return;
    if (all !== last) [last, movedAt] = [all, Date.now()];
    if (Date.now() - movedAt > SETTLE_STALL_MS) {
      throw new Error(
        `scenario 4: no watermark moved for ${SETTLE_STALL_MS} ms\n${await diagnose(slots, backend, behind)}`,
      );
    }
    await sleep(50);
  }
}

/** What the spec knows when a run does not settle: the lease, each process's view, the tasks behind. */
async function diagnose(
  slots: readonly SchedulerSlot[],
  backend: SchedulerBackend,
  behind: readonly string[],
): Promise<string> {
  const holders = await backend.leases.holders(SCHEDULER_LEASE_KEY);
  const views = await Promise.all(
    slots.map(async (s) => {
      const tasks = behind.map((b) => b.split(' ')[0]);
      const view = s.process.alive
        ? await ask(s, 'status', { tasks }, 5_000).catch(String)
        : 'dead';
      return `scheduler-${s.index} ${s.holderId} (proxy ${s.proxy.mode}): ${JSON.stringify(view)}`;
    }),
  );
  return [
    `lease: ${JSON.stringify(holders)}`,
    ...views,
    `behind: ${behind.join(', ')}`,
    `server: ${await backend.activity()}`,
  ].join('\n');
}
