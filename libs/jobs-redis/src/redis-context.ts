import type { Clock } from '@ultimat3/jobs';
import type { Cluster, Redis } from 'ioredis';
import { defineScripts, type ScriptArg, type ScriptName, type ScriptReply } from './redis-scripts';

/** What every part of the driver shares: the client, the key prefix, and the clock that decides. */
export interface RedisContext {
  readonly client: Redis | Cluster;
  /** `{tag}:` — every key of the deployment starts with it, so all of them hash to one Cluster slot. */
  readonly prefix: string;
  /** Runs one script with the clock override first and `argv` after it. */
  run(name: ScriptName, argv?: readonly ScriptArg[]): Promise<ScriptReply>;
}

/**
 * Builds a {@link RedisContext}. Without a clock every script reads the server's `TIME`, so one clock decides for every
 * process; with one (tests driving a frozen clock) its reading is sent as each script's first argument instead.
 */
export function redisContext(client: Redis | Cluster, prefix: string, clock?: Clock): RedisContext {
  const call = defineScripts(client);
  return {
    client,
    prefix,
    run: (name, argv = []) => call(name, prefix, [clock ? String(clock.now()) : '', ...argv]),
  };
}
