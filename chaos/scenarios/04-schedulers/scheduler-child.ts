/**
 * Scenario 4's scheduler process: opens the run's storage through its own TCP proxy (so the spec can stall just this
 * process's network), then runs one scheduler per episode as the spec commands: `prepare` (build the episode's tasks,
 * clock and scheduler), `start` (the scheduler starts asking for the lease), `go` (the driven clock starts), `halt`
 * (the scheduler stops and releases; answers what it counted). A process the spec SIGKILLs is replaced by a fresh one
 * that is sent `prepare`, `go` and `start` for the running episode.
 */
import { randomBytes } from 'node:crypto';
import { chaosChildConfig, runChaosChild, serveChaosChild } from '../../harness/child';
import type { ChaosTarget } from '../../harness/drivers';
import { episodeScheduler, type EpisodeCommand, type EpisodeScheduler } from './episode-scheduler';
import { openSchedulerBackend } from './scheduler-backend';

/** The process's argv config. */
export interface SchedulerChildConfig {
  /** The run's storage, its URL pointing at this slot's proxy. */
  readonly target: ChaosTarget;
  /** Which of the three scheduler slots this process fills. */
  readonly slot: number;
  /** The lease's real TTL (server clock). */
  readonly ttlMs: number;
}

runChaosChild(async () => {
  const config = chaosChildConfig<SchedulerChildConfig>();
  const backend = openSchedulerBackend(config.target);
  // random per process, never a hostname; the slot and pid let the spec find the leader's process and proxy
  const holderId = `s4-slot${config.slot}-${process.pid}-${randomBytes(3).toString('hex')}`;
  let current: EpisodeScheduler | undefined;

  const halt = async (): Promise<Record<string, unknown>> => {
    const running = current;
    current = undefined;
    if (running === undefined) return {};
    await running.scheduler.stop({ deadlineMs: 60_000 });
    return { counts: running.counts() };
  };

  serveChaosChild({
    ready: { holderId, slot: config.slot },
    answer: async (type, message) => {
      if (type === 'prepare') {
        await halt();
        const command = message['command'] as EpisodeCommand;
        current = episodeScheduler(backend, command, { holderId, ttlMs: config.ttlMs });
        return { holderId, skewMs: current.clock.skewMs };
      }
      if (current === undefined) throw new Error(`scheduler child: ${type} before prepare`);
      if (type === 'start') current.scheduler.start();
      else if (type === 'go') current.clock.run(String(message['epochMonoNs']));
      else if (type === 'halt') return halt();
      else if (type === 'status') {
        return {
          leading: current.scheduler.isLeader(),
          status: current.scheduler.status,
          nowMs: current.clock.now(),
          counts: current.counts(),
          inFlight: current.inFlight(),
          last: ((message['tasks'] as string[] | undefined) ?? []).map((name) =>
            current?.lastEvent(name),
          ),
        };
      } else throw new Error(`scheduler child: unknown request ${type}`);
      return {};
    },
    shutdown: async () => {
      await halt();
      await backend.close();
    },
  });
});
