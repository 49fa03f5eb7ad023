import { createHash } from 'node:crypto';
import { Command, type Cluster, type Redis } from 'ioredis';

/** The options of one command, as ioredis' `Command` takes them. */
type CommandOptions = ConstructorParameters<typeof Command>[2];
import { LUA_ACK } from './lua/ack.lua';
import { LUA_CANCEL } from './lua/cancel.lua';
import { LUA_CLAIM } from './lua/claim.lua';
import { LUA_COUNTERS_ROLLUP } from './lua/counters-rollup.lua';
import { LUA_ENQUEUE } from './lua/enqueue.lua';
import { LUA_EVENT_PAGE } from './lua/event-page.lua';
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
import { LUA_PURGE_WORKERS } from './lua/purge-workers.lua';
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
  eventPage: LUA_EVENT_PAGE,
  eventPurge: LUA_EVENT_PURGE,
  schedulerFire: LUA_SCHEDULER_FIRE,
  schedulerSkip: LUA_SCHEDULER_SKIP,
  purgeJobs: LUA_PURGE_JOBS,
  purgeCounters: LUA_PURGE_COUNTERS,
  purgeWorkers: LUA_PURGE_WORKERS,
  handOffLeave: LUA_HAND_OFF_LEAVE,
  handOffRegister: LUA_HAND_OFF_REGISTER,
} as const;

/** The name of one of the driver's scripts. */
export type ScriptName = keyof typeof SCRIPTS;

/** A value a script argument is sent as. */
export type ScriptArg = string | number;

/** What a script answers, as ioredis decodes a Lua reply: bulk strings, integers, nested arrays, or null. */
export type ScriptReply = string | number | null | ScriptReply[];

/** Whether the server answered that it does not hold the script (a restarted or flushed server). */
const noScript = (error: unknown): boolean =>
  error instanceof Error && error.message.includes('NOSCRIPT');

/** The command class of one script, and how to forget which connections hold it. */
interface ScriptCommandClass {
  readonly Sent: new (args: ScriptArg[], options: CommandOptions) => Command;
  forget(): void;
}

/**
 * The command class of one script, sent as EVALSHA (its first argument the script's SHA1) — except on a connection
 * that has not run it yet (a new client, a reconnect to a restarted server), where it goes as EVAL with the whole script,
 * which loads it: the scripts a caller sends back to back run in that order even then, none of them answered NOSCRIPT
 * and re-sent after the next. `forget()` (after a NOSCRIPT: the server was flushed) makes every connection load it
 * again.
 */
function scriptCommand(lua: string): ScriptCommandClass {
  const sha = createHash('sha1').update(lua).digest('hex');
  let ran = new WeakSet<object>();
  class Sent extends Command {
    constructor(args: ScriptArg[], options: CommandOptions) {
      args[0] = sha;
      super('evalsha', args, options);
    }

    override toWritable(socket: object): string | Buffer {
      if (!ran.has(socket)) {
        ran.add(socket);
        this.name = 'eval';
        this.args[0] = lua;
      }
      return super.toWritable(socket);
    }
  }
  return {
    Sent,
    forget: () => {
      ran = new WeakSet();
    },
  };
}

/**
 * Answers the caller that runs one of {@link SCRIPTS} on `client`: EVALSHA (EVAL on a connection's first run of it),
 * and once more, whole, when the server answers NOSCRIPT (a flushed server). Each run declares one key, the
 * deployment's prefix, so a Cluster client routes it to the slot of the prefix's hash tag; the client's own
 * `keyPrefix` and `showFriendlyErrorStack` apply as to any of its commands, and the reply is decoded as UTF-8 text.
 * Each run builds one command (an ioredis `Command` subclass per script, made here once) and hands it to the client's
 * `sendCommand`: none of `defineCommand`'s wrapping (argument copies, a callback adapter, a closure a call) before the
 * write.
 */
export function defineScripts(
  client: Redis | Cluster,
): (
  name: ScriptName,
  prefix: string,
  clock: string,
  argv: readonly ScriptArg[],
) => Promise<ScriptReply> {
  const classes = Object.fromEntries(
    Object.entries(SCRIPTS).map(([name, lua]) => [name, scriptCommand(lua)]),
  ) as Record<ScriptName, ScriptCommandClass>;
  const { keyPrefix, showFriendlyErrorStack } = client.options;
  const options: CommandOptions = keyPrefix
    ? { replyEncoding: 'utf8', keyPrefix }
    : { replyEncoding: 'utf8' };
  const send = (
    { Sent }: ScriptCommandClass,
    prefix: string,
    clock: string,
    argv: readonly ScriptArg[],
  ): Promise<ScriptReply> => {
    // the head is the script's SHA1 (set by the class); one array, the command's own
    const args: ScriptArg[] = ['', '1', prefix, clock];
    for (let i = 0; i < argv.length; i++) args.push(argv[i]!);
    const sent = new Sent(
      args,
      showFriendlyErrorStack ? { ...options, errorStack: new Error() } : options,
    );
    return client.sendCommand(sent) as Promise<ScriptReply>;
  };
  return (name, prefix, clock, argv) => {
    const script = classes[name];
    return send(script, prefix, clock, argv).catch((error: unknown) => {
      if (!noScript(error)) throw error;
      script.forget();
      return send(script, prefix, clock, argv);
    });
  };
}
