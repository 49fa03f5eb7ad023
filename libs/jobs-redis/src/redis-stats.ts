import { LIVE_STATES, type JobNameStats, type QueueStats } from '@ultimat3/jobs';
import type { RedisContext } from './redis-context';
import { fieldsOf } from './redis-rows';
import type { ScriptReply } from './redis-scripts';

type NameCounts = { -readonly [K in keyof JobNameStats]: JobNameStats[K] };

const byName = (a: { name: string }, b: { name: string }): number =>
  a.name < b.name ? -1 : a.name > b.name ? 1 : 0;

/** One queue's entry of {@link LUA_STATS}' reply as {@link QueueStats}. */
function queueOf(entry: ScriptReply[]): QueueStats {
  const queue = String(entry[0]);
  const counts = fieldsOf(entry[1] ?? []);
  const ages = fieldsOf(entry[2] ?? []);
  const state = (key: string): number => Number(counts.get(key) ?? 0);
  const names: NameCounts[] = [];
  // a name|state field's name is all before its last '|' (a state holds none; a name may)
  for (const name of new Set(
    [...counts.keys()].filter((k) => k.includes('|')).map((k) => k.slice(0, k.lastIndexOf('|'))),
  )) {
    const n: NameCounts = {
      name,
      ready: 0,
      delayed: 0,
      running: 0,
      suspended: 0,
      oldestReadyMs: 0,
    };
    for (const s of LIVE_STATES) n[s] = state(`${name}|${s}`);
    if (n.ready + n.delayed + n.running + n.suspended === 0) continue;
    n.oldestReadyMs = Number(ages.get(name) ?? 0);
    names.push(n);
  }
  // a queue's live count is the sum of its names' (the count hash keeps none of its own)
  const live = (s: (typeof LIVE_STATES)[number]): number => names.reduce((sum, n) => sum + n[s], 0);
  return {
    queue,
    ready: live('ready'),
    delayed: live('delayed'),
    running: live('running'),
    suspended: live('suspended'),
    done: state('done'),
    failed: state('failed'),
    dead: state('dead'),
    cancelled: state('cancelled'),
    oldestReadyMs: Math.max(0, ...names.map((n) => n.oldestReadyMs)),
    names: names.sort(byName),
  };
}

/** Counts per queue holding rows, by queue name, each with its live rows per job name. */
export async function queueStats(ctx: RedisContext): Promise<QueueStats[]> {
  const reply = await ctx.run('stats');
  const queues = Array.isArray(reply) ? reply.filter(Array.isArray).map(queueOf) : [];
  return queues.sort((a, b) => (a.queue < b.queue ? -1 : a.queue > b.queue ? 1 : 0));
}
