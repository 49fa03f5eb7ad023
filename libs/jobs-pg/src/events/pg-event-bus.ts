import {
  assertEventFind,
  assertEventPublish,
  DEFAULT_EVENT_TTL_MS,
  uuidv7,
  type EventBus,
  type JsonValue,
  type PublishedEvent,
} from '@ultimat3/jobs';
import type { PgExecutor } from '../executor/pg-executor';
import { qualify } from '../schema';
import { SQL_EVENT_PUBLISH } from './sql/event-publish.sql';
import { SQL_EVENTS_FIND } from './sql/events-find.sql';
import { SQL_EVENTS_FIND_TENANT } from './sql/events-find-tenant.sql';
import { SQL_EVENTS_NOW } from './sql/events-now.sql';
import { SQL_EVENTS_PURGE } from './sql/events-purge.sql';
import { SQL_EVENTS_RESET } from './sql/events-reset.sql';

/** Options of {@link postgresEventBus}. It takes no clock: the database's now() is the bus's one clock. */
export interface PostgresEventBusOptions {
  readonly executor: PgExecutor;
  readonly schema?: string;
  /** Rows read per page while matching (default 200). */
  readonly pageSize?: number;
}

interface EventRow {
  readonly id: string;
  readonly name: string;
  readonly payload: JsonValue;
  readonly tenant_id: string | null;
  readonly published_ms: string | number;
  readonly expires_ms: string | number;
}

function toEvent(row: EventRow): PublishedEvent {
  return {
    id: row.id,
    name: row.name,
    payload: row.payload,
    tenant: row.tenant_id,
    publishedAt: Number(row.published_ms),
    expiresAt: Number(row.expires_ms),
  };
}

/**
 * The event bus over `x_job_events`, stamped with the database's now() and answering `now()` from the same clock, so
 * a worker running ahead of the database still matches an event published after it asked. Each event keeps its
 * tenant (`tenant_id`, migration 0004); a lookup for one tenant reads that tenant's events only.
 */
export function postgresEventBus(options: PostgresEventBusOptions): EventBus {
  const { executor } = options;
  const sql = (text: string): string => qualify(text, options.schema);
  const publish = sql(SQL_EVENT_PUBLISH);
  const find = sql(SQL_EVENTS_FIND);
  const findTenant = sql(SQL_EVENTS_FIND_TENANT);
  const purge = sql(SQL_EVENTS_PURGE);
  const reset = sql(SQL_EVENTS_RESET);
  const pageSize = options.pageSize ?? 200;

  return {
    async now() {
      const { rows } = await executor.query<{ now_ms: string | number }>(SQL_EVENTS_NOW, []);
      return Number(rows[0]?.now_ms);
    },
    async publish(name, payload, opts = {}) {
      // the value contract at the door: a NUL or a lone surrogate in the name, a non-JSON payload, never a raw error
      assertEventPublish(name, payload, opts);
      const { rows } = await executor.query<EventRow>(publish, [
        uuidv7(),
        name,
        JSON.stringify(payload),
        opts.ttlMs ?? DEFAULT_EVENT_TTL_MS,
        opts.tenant ?? null,
      ]);
      const row = rows[0];
      if (row === undefined) throw new Error('jobs-pg: the event insert returned no row');
      return toEvent(row);
    },
    async find(name, sinceMs, match, opts = {}) {
      assertEventFind(name, sinceMs, opts.tenant);
      // a tenant's lookup reads only its own events; no tenant is '' (never a tenant's id: the contract refuses it)
      const scoped = opts.tenant !== undefined;
      let cursor: string | null = null;
      for (;;) {
        const params: unknown[] = [name, sinceMs, cursor, pageSize];
        if (scoped) params.push(opts.tenant ?? '');
        const page: { rows: EventRow[] } = await executor.query<EventRow>(
          scoped ? findTenant : find,
          params,
        );
        const rows: readonly EventRow[] = page.rows;
        for (const row of rows) {
          const event = toEvent(row);
          if (match === undefined || match(event.payload)) return event;
        }
        const last: EventRow | undefined = rows[rows.length - 1];
        if (last === undefined || rows.length < pageSize) return undefined;
        cursor = last.id;
      }
    },
    async purgeExpired() {
      const { rowCount } = await executor.query(purge, []);
      return rowCount;
    },
    async reset() {
      await executor.query(reset, []);
    },
  };
}
