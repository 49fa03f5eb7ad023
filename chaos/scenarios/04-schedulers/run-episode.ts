import { setTimeout as sleep } from 'node:timers/promises';
import { SCHEDULER_LEASE_KEY } from '@ultimat3/jobs';
import type { ChaosRandom } from '../../harness/schedule';
import type { EpisodeCommand, EpisodeCounts } from './episode-scheduler';
import type { Episode } from './episodes';
import type { SchedulerBackend } from './scheduler-backend';
import {
  ask,
  haltSlot,
  joinEpisode,
  leaderSlot,
  replaceProcess,
  type SchedulerSlot,
} from './scheduler-slots';
import { settle, until } from './settle';

/** How one driver run drives its episodes. */
export interface EpisodePlan {
  /** Driven ms per real ms. */
  readonly speed: number;
  /** The lease's real TTL (server clock). */
  readonly ttlMs: number;
  /** Leader kills and leader stalls per episode. */
  readonly kills: number;
  readonly stalls: number;
  /** Which slot starts first (and so leads at the start): episode i starts `(firstSlot + i) % 3`. */
  readonly firstSlot: number;
}

/** What one episode did. */
export interface EpisodeRun {
  readonly episode: Episode;
  /** Per task, the watermark it was armed at (nothing at or before it is owed). */
  readonly armedAt: ReadonlyMap<string, number>;
  /** Occurrences after it are not judged: the run's end, less more than the largest skew. */
  readonly judgeEndMs: number;
  readonly kills: number;
  readonly stalls: number;
  /** What each process counted (the killed ones' counts die with them). */
  readonly counts: readonly EpisodeCounts[];
  /** Each slot's clock skew as its process measured it at the episode's start. */
  readonly skews: readonly number[];
}

/** A leader looks at its due times at least this often (real ms); occurrences wake it exactly anyway. */
const TICK_REAL_MS = 20;
/** Past the end of the window, occurrences up to here are owed (larger than any process's skew). */
const JUDGE_MARGIN_MS = 60_000;

/** The command every process of the episode gets: its tasks, the clock plan, renewals at a third of the real TTL. */
function episodeCommand(episode: Episode, plan: EpisodePlan): EpisodeCommand {
  return {
    episode: episode.index,
    tasks: episode.tasks,
    clock: {
      startMs: episode.startMs,
      speed: plan.speed,
      reference: { monoNs: process.hrtime.bigint().toString(), wallMs: Date.now() },
    },
    renewEveryMs: Math.floor(plan.ttlMs / 3) * plan.speed,
    tickIntervalMs: TICK_REAL_MS * plan.speed,
  };
}

/**
 * Prepares every process, starts `first` alone until it armed every task (its clock still held at the start, so the
 * arming watermark is the start plus its skew), then the standbys. Answers the skews and the arming watermarks.
 */
async function armEpisode(
  command: EpisodeCommand,
  slots: readonly SchedulerSlot[],
  first: SchedulerSlot,
  backend: SchedulerBackend,
  ttlMs: number,
): Promise<{ skews: number[]; armedAt: Map<string, number> }> {
  const skews = await Promise.all(
    slots.map(async (s) => Number((await ask(s, 'prepare', { command }))['skewMs'])),
  );
  // a lease left behind (a leader killed near the end) lapses first: a held clock would not ask again
  await until('the previous lease lapsed', 10 * ttlMs, async () => {
    return (await backend.leases.holders(SCHEDULER_LEASE_KEY)).length === 0;
  });
  await ask(first, 'start');
  const names = command.tasks.map((t) => t.name);
  let armedAt = new Map<string, number>();
  await until(`every task armed by scheduler-${first.index}`, 30_000, async () => {
    armedAt = new Map(await backend.state.load(names));
    return armedAt.size === names.length;
  });
  await Promise.all(slots.filter((s) => s !== first).map((s) => ask(s, 'start')));
  return { skews, armedAt };
}

/** The seeded faults of one episode: each a kind and a point in [0.1, 0.7) of the window's real length, in order. */
function faultPoints(
  plan: EpisodePlan,
  random: ChaosRandom,
): { kind: 'kill' | 'stall'; at: number }[] {
  const points = (kind: 'kill' | 'stall', n: number): { kind: typeof kind; at: number }[] =>
    Array.from({ length: n }, () => ({ kind, at: random.between(0.1, 0.7) }));
  return [...points('kill', plan.kills), ...points('stall', plan.stalls)].sort(
    (a, b) => a.at - b.at,
  );
}

/**
 * Injects the faults while the clocks run: at each point the CURRENT lease holder (by the server's clock) is either
 * SIGKILLed — a fresh process then joins the running episode in its slot — or stalled: its proxy holds every byte,
 * both ways, for the lease's TTL and 500 ms more, then heals. Answers once the window's real length has passed and
 * every replacement has joined.
 */
async function injectFaults(
  context: { command: EpisodeCommand; epochMonoNs: string; epochAt: number; realMs: number },
  slots: readonly SchedulerSlot[],
  backend: SchedulerBackend,
  plan: EpisodePlan,
  random: ChaosRandom,
): Promise<{ kills: number; stalls: number }> {
  const replacements: Promise<unknown>[] = [];
  const done = { kills: 0, stalls: 0 };
  for (const fault of faultPoints(plan, random)) {
    await sleep(Math.max(0, context.epochAt + fault.at * context.realMs - Date.now()));
    let victim: SchedulerSlot | undefined;
    await until('a leader to fault', 10 * plan.ttlMs, async () => {
      victim = await leaderSlot(backend.leases, slots);
      return victim?.process.alive === true;
    });
    const slot = victim as SchedulerSlot;
    if (fault.kind === 'kill') {
      done.kills++;
      await slot.process.kill('SIGKILL');
      // the dead process's lease lives on until it lapses: never pick its replacement for it while that one starts
      slot.holderId = '';
      replacements.push(
        replaceProcess(slot).then(() => joinEpisode(slot, context.command, context.epochMonoNs)),
      );
    } else {
      done.stalls++;
      slot.proxy.stall();
      await sleep(plan.ttlMs + 500);
      await slot.proxy.heal();
    }
  }
  await sleep(Math.max(0, context.epochAt + context.realMs - Date.now()));
  await Promise.all(replacements);
  return done;
}

/**
 * Runs one episode on three slots: armed by one process with the clocks held, then run with leader kills and leader
 * stalls at seeded moments of its middle; past the window's end it goes on until every task's watermark passed the
 * judged end, then every scheduler halts (and releases the lease).
 */
export async function runEpisode(
  episode: Episode,
  slots: readonly SchedulerSlot[],
  backend: SchedulerBackend,
  plan: EpisodePlan,
  random: ChaosRandom,
): Promise<EpisodeRun> {
  const command = episodeCommand(episode, plan);
  const first = slots[(plan.firstSlot + episode.index) % slots.length] as SchedulerSlot;
  const { skews, armedAt } = await armEpisode(command, slots, first, backend, plan.ttlMs);
  const epochMonoNs = process.hrtime.bigint().toString();
  await Promise.all(slots.map((s) => ask(s, 'go', { epochMonoNs })));
  const realMs = (episode.endMs - episode.startMs) / plan.speed;
  const context = { command, epochMonoNs, epochAt: Date.now(), realMs };
  const { kills, stalls } = await injectFaults(context, slots, backend, plan, random);
  const judgeEndMs = episode.endMs - JUDGE_MARGIN_MS;
  await settle(episode, slots, backend, armedAt, judgeEndMs);
  const counts = await Promise.all(slots.map((s) => haltSlot(s)));
  return {
    episode,
    armedAt,
    judgeEndMs,
    kills,
    stalls,
    counts: counts.filter((c): c is EpisodeCounts => c !== undefined),
    skews,
  };
}
