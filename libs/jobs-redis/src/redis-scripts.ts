import type { Cluster, Redis } from 'ioredis';
import { LUA_ACK } from './lua/ack.lua';
import { LUA_CANCEL } from './lua/cancel.lua';
import { LUA_CLAIM } from './lua/claim.lua';
import { LUA_COUNTERS_ROLLUP } from './lua/counters-rollup.lua';
import { LUA_ENQUEUE } from './lua/enqueue.lua';
import { LUA_EVENT_PUBLISH } from './lua/event-publish.lua';
import { LUA_EVENT_PURGE } from './lua/event-purge.lua';
import { LUA_HAND_OFF_LEAVE } from './lua/hand-off-leave.lua';
import { LUA_HAND_OFF_REGISTER } from './lua/hand-off-register.lua';
import { LUA_HEARTBEAT } from './lua/heartbeat.lua';
import { LUA_LEASE_ACQUIRE } from './lua/lease-acquire.lua';
import { LUA_LEASE_HOLDERS } from './lua/lease-holders.lua';
import { LUA_LEASE_RENEW } from './lua/lease-renew.lua';
import { LUA_LIST } from './lua/list.lua';
import { LUA_NACK } from './lua/nack.lua';
import { LUA_PROGRESS } from './lua/progress.lua';
import { LUA_PROMOTE_MANY } from './lua/promote-many.lua';
import { LUA_PROMOTE } from './lua/promote.lua';
import { LUA_PURGE_COUNTERS } from './lua/purge-counters.lua';
import { LUA_PURGE_JOBS } from './lua/purge-jobs.lua';
import { LUA_REMOVE_MANY } from './lua/remove-many.lua';
import { LUA_REMOVE } from './lua/remove.lua';
import { LUA_REQUEUE_MANY } from './lua/requeue-many.lua';
import { LUA_REQUEUE } from './lua/requeue.lua';
import { LUA_RESCUE } from './lua/rescue.lua';
import { LUA_SCHEDULER_FIRE } from './lua/scheduler-fire.lua';
import { LUA_SCHEDULER_SKIP } from './lua/scheduler-skip.lua';
import { LUA_STATS } from './lua/stats.lua';
import { LUA_STEP_SAVE } from './lua/step-save.lua';
import { LUA_TASK_FIRE_RECORD } from './lua/task-fire-record.lua';
import { LUA_WORKER_BEAT } from './lua/worker-beat.lua';
import { LUA_WORKERS } from './lua/workers.lua';

/** Every script of the driver, by the operation it performs. */
export const SCRIPTS = {
  enqueue: LUA_ENQUEUE,
  claim: LUA_CLAIM,
  rescue: LUA_RESCUE,
  ack: LUA_ACK,
  nack: LUA_NACK,
  heartbeat: LUA_HEARTBEAT,
  progress: LUA_PROGRESS,
  stepSave: LUA_STEP_SAVE,
  stats: LUA_STATS,
  list: LUA_LIST,
  cancel: LUA_CANCEL,
  remove: LUA_REMOVE,
  requeue: LUA_REQUEUE,
  promote: LUA_PROMOTE,
  requeueMany: LUA_REQUEUE_MANY,
  removeMany: LUA_REMOVE_MANY,
  promoteMany: LUA_PROMOTE_MANY,
  taskFireRecord: LUA_TASK_FIRE_RECORD,
  leaseAcquire: LUA_LEASE_ACQUIRE,
  leaseRenew: LUA_LEASE_RENEW,
  leaseHolders: LUA_LEASE_HOLDERS,
  workerBeat: LUA_WORKER_BEAT,
  workers: LUA_WORKERS,
  countersRollup: LUA_COUNTERS_ROLLUP,
  eventPublish: LUA_EVENT_PUBLISH,
  eventPurge: LUA_EVENT_PURGE,
  schedulerFire: LUA_SCHEDULER_FIRE,
  schedulerSkip: LUA_SCHEDULER_SKIP,
  purgeJobs: LUA_PURGE_JOBS,
  purgeCounters: LUA_PURGE_COUNTERS,
  handOffLeave: LUA_HAND_OFF_LEAVE,
  handOffRegister: LUA_HAND_OFF_REGISTER,
} as const;

/** The name of one of the driver's scripts. */
export type ScriptName = keyof typeof SCRIPTS;

/** A value a script argument is sent as. */
export type ScriptArg = string | number;

/** What a script answers, as ioredis decodes a Lua reply: bulk strings, integers, nested arrays, or null. */
export type ScriptReply = string | number | null | ScriptReply[];

type ScriptCommand = (prefix: string, ...argv: ScriptArg[]) => Promise<ScriptReply>;

/** ioredis's command name for one script: prefixed, so it never clashes with a command the app defined. */
const commandName = (name: ScriptName): string => `ultimat3Jobs_${name}`;

/**
 * Defines every script on `client` (ioredis `defineCommand`: sent by EVALSHA, re-sent whole once when the server
 * answers NOSCRIPT — a restarted or flushed server) and answers the caller that runs one. Each call declares one key,
 * the deployment's prefix, so a Cluster client routes it to the slot of the prefix's hash tag.
 */
export function defineScripts(
  client: Redis | Cluster,
): (name: ScriptName, prefix: string, argv: readonly ScriptArg[]) => Promise<ScriptReply> {
  for (const [name, lua] of Object.entries(SCRIPTS) as [ScriptName, string][]) {
    client.defineCommand(commandName(name), { numberOfKeys: 1, lua });
  }
  const commands = client as unknown as Record<string, ScriptCommand>;
  return (name, prefix, argv) => commands[commandName(name)]!(prefix, ...argv);
}
