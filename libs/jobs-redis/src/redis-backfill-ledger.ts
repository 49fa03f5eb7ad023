import {
  clampBackfillListLimit,
  type BackfillLedger,
  type BackfillPassProgress,
  type BackfillPassRow,
  type BackfillStatus,
  type JsonValue,
} from '@ultimat3/jobs';
import type { Cluster, Redis } from 'ioredis';
import { LUA_BACKFILL_BEGIN } from './lua/backfill-begin.lua';
import { LUA_BACKFILL_BY_JOB } from './lua/backfill-by-job.lua';
import { LUA_BACKFILL_FINISH } from './lua/backfill-finish.lua';
import { LUA_BACKFILL_LIST } from './lua/backfill-list.lua';
import { LUA_BACKFILL_PROGRESS } from './lua/backfill-progress.lua';
import { redisKeyPrefix } from './redis-keys';

const SCRIPTS = {
  begin: LUA_BACKFILL_BEGIN,
  progress: LUA_BACKFILL_PROGRESS,
  finish: LUA_BACKFILL_FINISH,
  byJob: LUA_BACKFILL_BY_JOB,
  list: LUA_BACKFILL_LIST,
} as const;

type Script = keyof typeof SCRIPTS;
type Reply = string | number | null | Reply[];

/** Options of {@link redisBackfillLedger}. */
export interface RedisBackfillLedgerOptions {
  /** The ioredis client (or Cluster) the ledger's keys live on. */
  readonly client: Redis | Cluster;
  /** The deployment name the job driver uses (default `jobs`): the ledger's keys share its hash tag. */
  readonly prefix?: string;
}

/** A row from HGETALL's flat field / value list: numbers from their decimal text, an absent field null. */
function rowOf(flat: readonly Reply[]): BackfillPassRow {
  const f: Record<string, string> = {};
  for (let i = 0; i + 1 < flat.length; i += 2) f[String(flat[i])] = String(flat[i + 1]);
  const num = (key: string): number => Number(f[key] ?? 0);
  return {
    id: f['id'] ?? '',
    name: f['name'] ?? '',
    checksum: f['checksum'] ?? '',
    status: (f['status'] ?? 'running') as BackfillStatus,
    appVersion: f['appVersion'] ?? null,
    jobId: f['jobId'] ?? null,
    runId: f['runId'] ?? null,
    rows: num('rows'),
    batches: num('batches'),
    lastCursor: f['lastCursor'] === undefined ? null : (JSON.parse(f['lastCursor']) as JsonValue),
    lastError: f['lastError'] ?? null,
    startedAt: num('startedAt'),
    updatedAt: num('updatedAt'),
    completedAt: f['completedAt'] === undefined ? null : num('completedAt'),
  };
}

/**
 * An optional text as a script argument: '' for none (null or absent), '=' and the text for a text, so an empty text
 * is kept apart from none (an empty app version stays '', a filter by the empty name matches no row).
 */
const optionalText = (text: string | null | undefined): string =>
  text === null || text === undefined ? '' : `=${text}`;

const cursorText = (p: BackfillPassProgress): string =>
  p.lastCursor === null ? '' : JSON.stringify(p.lastCursor);

/**
 * The backfill ledger on Redis, beside the jobs: one hash per pass under the deployment's hash tag (`{jobs}:bf:r:<id>`,
 * the job → row index and the start-ordered index beside it), each operation one Lua script
 * (`lua/backfill-*.lua.ts`), so the ledger is as Cluster-legal as the driver. Cursors are stored as the JSON text the
 * pass wrote, never decoded by a script.
 */
export function redisBackfillLedger(options: RedisBackfillLedgerOptions): BackfillLedger {
  const { client } = options;
  const prefix = redisKeyPrefix(options.prefix ?? 'jobs');
  for (const [name, lua] of Object.entries(SCRIPTS)) {
    client.defineCommand(`ultimat3Backfill_${name}`, { numberOfKeys: 1, lua });
  }
  const commands = client as unknown as Record<
    string,
    (key: string, ...argv: (string | number)[]) => Promise<Reply>
  >;
  const run = (name: Script, ...argv: (string | number)[]): Promise<Reply> =>
    commands[`ultimat3Backfill_${name}`]!(prefix, ...argv);

  return {
    async begin(start) {
      const reply = await run(
        'begin',
        start.id,
        start.name,
        start.checksum,
        optionalText(start.appVersion),
        start.jobId,
        start.runId,
        String(start.nowMs),
      );
      return rowOf(reply as Reply[]);
    },

    async progress(id, p) {
      await run('progress', id, String(p.rows), String(p.batches), cursorText(p), String(p.nowMs));
    },

    async finish(id, status, p, error) {
      await run(
        'finish',
        id,
        status,
        String(p.rows),
        String(p.batches),
        cursorText(p),
        String(p.nowMs),
        optionalText(error),
      );
    },

    async byJob(jobId) {
      const reply = (await run('byJob', jobId)) as Reply[];
      return reply.length === 0 ? undefined : rowOf(reply);
    },

    async list(filter = {}) {
      const limit = clampBackfillListLimit(filter.limit);
      const reply = (await run(
        'list',
        optionalText(filter.name),
        optionalText(filter.status),
        limit,
      )) as Reply[][];
      return reply.map(rowOf);
    },
  };
}
