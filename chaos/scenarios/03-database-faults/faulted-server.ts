/**
 * The servers scenario 3 faults: a PostgreSQL or a `redis-server` of the scenario's own (never the jest global
 * setup's, which every other spec shares), each restartable on the same port and data, with a TCP proxy in front that
 * the workers connect through.
 */
import { Client, Pool } from 'pg';
import { pgPoolExecutor, migrate } from '@ultimat3/jobs-pg';
import { startThrowawayRedis, type ThrowawayRedis } from '../../../scripts/throwaway-redis.mjs';
import { startOwnedPostgres, type OwnedPostgres } from '../../../libs/jobs-pg/test/owned-postgres';
import type { ChaosDriverName, ChaosTarget } from '../../harness/drivers';
import { startTcpProxy, type TcpProxy } from '../../harness/tcp-proxy';

/** A server the scenario owns and faults. */
export interface FaultedServer {
  readonly driver: ChaosDriverName;
  /** Where the workers go: through the proxy. */
  readonly target: ChaosTarget;
  /** Where the spec goes (enqueues, final state): straight to the server. */
  readonly direct: ChaosTarget;
  readonly proxy: TcpProxy;
  /** Stops the server (a clean shutdown: every session cut) and starts it again on the same port and data. */
  restart(downMs: number): Promise<void>;
  /** PostgreSQL only: every new transaction read-only (`default_transaction_read_only`), or back to writable. */
  readOnly?(on: boolean): Promise<void>;
  close(): Promise<void>;
}

const portOf = (url: string): number => Number(new URL(url).port);
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** `url` with its port replaced by `port`. */
function through(url: string, port: number): string {
  const next = new URL(url);
  next.port = String(port);
  return next.toString();
}

/** A PostgreSQL of its own (initdb: a few seconds), its jobs in schema `schema`, migrated. */
export async function startFaultedPostgres(schema: string): Promise<FaultedServer> {
  const pg: OwnedPostgres = await startOwnedPostgres('restartable');
  const pool = new Pool({ connectionString: pg.url, max: 1 });
  await migrate(pgPoolExecutor(pool), { schema });
  await pool.end();
  const proxy = await startTcpProxy({ targetPort: portOf(pg.url) });
  /** One admin session per switch: its own SET keeps it writable whatever the server's default says. */
  const admin = async (sql: readonly string[]): Promise<void> => {
    const client = new Client({ connectionString: pg.url });
    await client.connect();
    try {
      await client.query('set default_transaction_read_only = off');
      for (const statement of sql) await client.query(statement);
    } finally {
      await client.end();
    }
  };
  return {
    driver: 'pg',
    target: { driver: 'pg', url: through(pg.url, proxy.port), schema },
    direct: { driver: 'pg', url: pg.url, schema },
    proxy,
    async restart(downMs) {
      await pg.stop();
      await sleep(downMs);
      await pg.start();
    },
    // existing sessions pick the new default up at their next transaction (after the reload signal reaches them)
    readOnly: (on) =>
      admin([
        on
          ? 'alter system set default_transaction_read_only = on'
          : 'alter system reset default_transaction_read_only',
        'select pg_reload_conf()',
      ]),
    async close() {
      await proxy.close();
      await pg.close();
    },
  };
}

/** A `redis-server` of its own with the append-only file on (`appendfsync everysec`), jobs under `prefix`. */
export async function startFaultedRedis(prefix: string): Promise<FaultedServer> {
  let server: ThrowawayRedis = await startThrowawayRedis({ name: 'chaos-redis', aof: true });
  const proxy = await startTcpProxy({ targetPort: server.port });
  return {
    driver: 'redis',
    target: { driver: 'redis', url: through(server.url, proxy.port), prefix },
    direct: { driver: 'redis', url: server.url, prefix },
    proxy,
    async restart(downMs) {
      // SIGTERM: Redis writes and fsyncs the append-only file before it exits
      await server.stop({ keepDir: true });
      await sleep(downMs);
      server = await startThrowawayRedis({ aof: true, port: server.port, dir: server.dir });
    },
    async close() {
      await proxy.close();
      await server.stop();
    },
  };
}
