import { readFileSync } from 'node:fs';
import {
  chaosDrivers,
  chaosDatabaseSpec,
  createChaosRun,
  type ChaosDriverName,
} from '../../harness/drivers';
import { recordChaos } from '../../harness/report';
import { announceSeed, chaosRandom, chaosSeed, seedFor } from '../../harness/schedule';
import { sized } from '../../harness/size';
import { episodes } from './episodes';
import { runEpisode, type EpisodeRun } from './run-episode';
import { openSchedulerBackend } from './scheduler-backend';
import { startSlot, type SchedulerSlot } from './scheduler-slots';
import { episodeRows, judgeEpisode, type EpisodeVerdict } from './verdicts';

const SCENARIO = '4 schedulers';
/** The skew one process runs with, ±: its sign flips between the two drivers of a run, so both are covered. */
const SKEW_MS = 30_000;
const SIZE = sized({
  // 00:45-03:15 local around each switch (the gap or the repeated hour, and 02:30) at 1,200x: 1.5 or 3.5 real hours
  // of driven time in 4.5 or 10.5 s per episode
  ci: {
    window: { fromHour: 0.75, toHour: 3.25 },
    speed: 1_200,
    kills: 1,
    stalls: 1,
    timeoutMs: 240_000,
  },
  // 22:00 the day before to 06:00 at 600x: 8 or 9 driven hours in 48 or 54 s per episode
  full: {
    window: { fromHour: -2, toHour: 6 },
    speed: 600,
    kills: 3,
    stalls: 2,
    timeoutMs: 1_800_000,
  },
});
/** The scheduler lease's real TTL on the server's clock; renewed every third of it. */
const TTL_MS = 2_000;

const seed = chaosSeed();
const db = chaosDatabaseSpec();

beforeAll(() => {
  announceSeed(SCENARIO, seed);
});

function sum(
  runs: readonly EpisodeRun[],
  pick: (c: EpisodeRun['counts'][number]) => number,
): number {
  return runs.flatMap((r) => r.counts).reduce((n, c) => n + pick(c), 0);
}

async function runScenario(driver: ChaosDriverName, skewMs: number): Promise<void> {
  const random = chaosRandom(seedFor(seed, `04 schedulers/${driver}`));
  const startedAt = Date.now();
  const run = await createChaosRun(driver, db);
  const backend = openSchedulerBackend(run.target);
  const skewedSlot = random.int(3);
  const slots: SchedulerSlot[] = [];
  const runs: EpisodeRun[] = [];
  const verdicts: EpisodeVerdict[] = [];
  try {
    slots.push(
      ...(await Promise.all(
        [0, 1, 2].map((i) =>
          startSlot(run.target, i, { ttlMs: TTL_MS, skewMs: i === skewedSlot ? skewMs : 0 }),
        ),
      )),
    );
    const plan = { ...SIZE, ttlMs: TTL_MS, firstSlot: random.int(3) };
    for (const episode of episodes(SIZE.window)) {
      const done = await runEpisode(episode, slots, backend, plan, random);
      const verdict = judgeEpisode(done, await episodeRows(backend.driver, episode.index));
      runs.push(done);
      verdicts.push(verdict);
      const t = verdict.total;
      process.stdout.write(
        `chaos ${SCENARIO} ${driver} ${episode.label}: ${verdict.fires} fires, ${t.fired}/${t.expected} owed fired, ` +
          `${t.skippedByPolicy} passed by policy, doubles ${t.doubles}, strays ${t.unexpected}, ` +
          `skipped beyond policy ${t.skippedBeyondPolicy}\n`,
      );
    }
  } finally {
    await Promise.all(slots.map((s) => s.process.kill('SIGKILL')));
    await Promise.all(slots.map((s) => s.proxy.close()));
    await backend.close();
    await run.drop();
  }

  const total = (pick: (v: EpisodeVerdict['total']) => number): number =>
    verdicts.reduce((n, v) => n + pick(v.total), 0);
  const invariants = {
    'double fires': total((v) => v.doubles),
    'fires of no occurrence (cron, zone, DST rule)': total((v) => v.unexpected),
    'occurrences skipped beyond the catch-up policy': total((v) => v.skippedBeyondPolicy),
  };
  const kills = runs.reduce((n, r) => n + r.kills, 0);
  const stalls = runs.reduce((n, r) => n + r.stalls, 0);
  const measuredSkew = runs.map((r) => r.skews[skewedSlot] as number);
  recordChaos({
    scenario: SCENARIO,
    driver,
    volume: `${runs.length} DST episodes x 18 tasks (2 zones x 3 crons x 3 catch-up policies), 3 scheduler processes, ${total((v) => v.expected)} owed occurrences`,
    faults: [
      `SIGKILL leader x${kills}`,
      `leader network stalled past its ${TTL_MS} ms lease x${stalls}`,
      `clock skew ${skewMs > 0 ? '+' : ''}${skewMs / 1000} s on scheduler-${skewedSlot} (libfaketime)`,
      `DST switch days: ${runs.map((r) => r.episode.label).join('; ')}`,
    ],
    invariants,
    figures: {
      seed,
      'driven speed': `${SIZE.speed}x`,
      'wall time (s)': Math.round((Date.now() - startedAt) / 1000),
      'load average at the end': readFileSync('/proc/loadavg', 'utf8')
        .split(' ')
        .slice(0, 3)
        .join(' '),
      fires: verdicts.reduce((n, v) => n + v.fires, 0),
      'occurrences passed by skip / run-once': total((v) => v.skippedByPolicy),
      'fires refused by the watermark fence': sum(runs, (c) => c.refused),
      'fires sent after the sender lease lapsed': sum(runs, (c) => c.staleSent),
      'fires landed after the sender lease lapsed (sole fire of their occurrence)': sum(
        runs,
        (c) => c.staleLanded,
      ),
      'leader acquisitions': sum(runs, (c) => c.events['jobs.scheduler.leader.acquired'] ?? 0),
      'catch-up rounds': sum(runs, (c) => c.events['jobs.scheduler.task.catch-up'] ?? 0),
      'measured skew of the skewed process (ms)': measuredSkew.join(' / '),
    },
  });
  for (const skew of measuredSkew) expect(Math.abs(skew - skewMs)).toBeLessThan(2_000);
  expect(invariants).toEqual({
    'double fires': 0,
    'fires of no occurrence (cron, zone, DST rule)': 0,
    'occurrences skipped beyond the catch-up policy': 0,
  });
  expect(kills).toBe(runs.length * SIZE.kills);
  expect(stalls).toBe(runs.length * SIZE.stalls);
}

describe('chaos 4: three schedulers through leader kills, stalled leases, a skewed clock and DST switch days', () => {
  const firstSign = chaosRandom(seedFor(seed, '04 schedulers/skew')).next() < 0.5 ? 1 : -1;
  it.each(
    chaosDrivers.map(
      (driver, i) => [driver, (i % 2 === 0 ? firstSign : -firstSign) * SKEW_MS] as const,
    ),
  )('%s (skew %d ms)', (driver, skewMs) => runScenario(driver, skewMs), SIZE.timeoutMs);
});
