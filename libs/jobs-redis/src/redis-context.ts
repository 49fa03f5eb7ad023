import type { Clock } from '@ultimat3/jobs';
import type { Cluster, Redis } from 'ioredis';
import { assertNoEviction } from './redis-server-check';
import { defineScripts, type ScriptArg, type ScriptName, type ScriptReply } from './redis-scripts';

/** What every part of the driver shares: the client, the key prefix, and the clock that decides. */
export interface RedisContext {
  readonly client: Redis | Cluster;
  /** `{tag}:` — every key of the deployment starts with it, so all of them hash to one Cluster slot. */
  readonly prefix: string;
  /** The test clock override, when one was given (see `RedisJobDriverOptions.clock`). */
  readonly clock: Clock | undefined;
  /** Runs one script with the clock override first and `argv` after it. */
  run(name: ScriptName, argv?: readonly ScriptArg[]): Promise<ScriptReply>;
}

/**
 * Builds a {@link RedisContext}. Before its first script it checks the server will not evict keys
 * ({@link assertNoEviction}): every operation is refused with the fix until it is so (each refused one checks again,
 * so the fix run on a live server lifts the refusal without a restart). Without a clock every script reads the server's `TIME`, so one clock decides for every
 * process; with one (tests driving a frozen clock) its reading is sent as each script's first argument instead.
 * `onRun` is told each script's name as it is sent.
 */
export function redisContext(
  client: Redis | Cluster,
  prefix: string,
  clock?: Clock,
  onRun?: (name: ScriptName) => void,
): RedisContext {
  const call = defineScripts(client);
  // the server is checked until a check passes: a failed check (Redis down) is tried again next time, and so is a
  // refused policy — the operator may run the fix the refusal names while this process keeps running
  let checked: Promise<void> | undefined;
  let passed = false;
  const check = (): Promise<void> =>
    (checked ??= assertNoEviction(client, prefix).then(
      () => {
        passed = true;
      },
      (error: unknown) => {
        checked = undefined;
        throw error;
      },
    ));
  const send = (name: ScriptName, argv: readonly ScriptArg[]): Promise<ScriptReply> => {
    onRun?.(name);
    return call(name, prefix, clock ? String(clock.now()) : '', argv);
  };
  return {
    client,
    prefix,
    clock,
    // once the check passed, a script is sent at once: no promise of this function's own on every call
    run: (name, argv = []) => (passed ? send(name, argv) : check().then(() => send(name, argv))),
  };
}
