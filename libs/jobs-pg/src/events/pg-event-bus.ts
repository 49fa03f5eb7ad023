import {
  assertEventFind,
  assertEventPublish,
  DEFAULT_EVENT_TTL_MS,
  InvariantError,
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
  /** Where the bus's statements run. */
  readonly executor: PgExecutor;
  /** The schema holding the tables `migrate()` created (default: found through `search_path`). */
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

/** A row of a find page: with its `published_at` in exact epoch microseconds, the next page's cursor. */
interface EventPageRow extends EventRow {
  readonly published_us: string;
}

/**
 * The span a lookup's `sinceMs` is held to (0001-01-01 to JavaScript's last date, +275760-09-13): inside what a
 * `timestamptz` stores, where `to_timestamp` of any finite number past it is a raw "timestamp out of range". Every
 * event is stamped with the database's now(), inside the span, so a since beyond either end answers as that end does.
 */
const EARLIEST_SINCE_MS = -62_135_596_800_000;
const LATEST_SINCE_MS = 8_640_000_000_000_000;

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

/** How {@link findEvent} reads its pages: the statement (one tenant's or all events) and its page size. */
interface FindPages {
  readonly executor: PgExecutor;
  readonly statement: string;
  readonly pageSize: number;
}

/**
 * The first event named `name` published at or after `since` (epoch ms, already held to the stored span) that `match`
 * accepts, read page by page in publish order; `tenant` given, that tenant's events only (its statement takes it).
 */
async function findEvent(
  pages: FindPages,
  name: string,
  since: number,
  match: ((payload: JsonValue) => boolean) | undefined,
  tenant: string | undefined,
): Promise<PublishedEvent | undefined> {
  const { executor, statement, pageSize } = pages;
  // the last event read, by value: a purge deleting it between two pages must not end the walk
  let cursor: { readonly id: string; readonly us: string } | null = null;
  for (;;) {
    const params: unknown[] = [name, since, cursor?.id ?? null, pageSize];
    if (tenant !== undefined) params.push(tenant);
    params.push(cursor?.us ?? null);
    const page: { rows: EventPageRow[] } = await executor.query<EventPageRow>(statement, params);
    const rows: readonly EventPageRow[] = page.rows;
    for (const row of rows) {
      const event = toEvent(row);
      if (match === undefined || match(event.payload)) return event;
    }
    const last: EventPageRow | undefined = rows[rows.length - 1];
    if (last === undefined || rows.length < pageSize) return undefined;
    cursor = { id: last.id, us: last.published_us };
  }
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
      if (row === undefined)
        throw new InvariantError(
          'jobs-pg: the event insert answered no row (an insert … returning always answers its row).',
        );
      return toEvent(row);
    },
    async find(name, sinceMs, match, opts = {}) {
      assertEventFind(name, sinceMs, opts.tenant);
      const since = Math.min(Math.max(sinceMs, EARLIEST_SINCE_MS), LATEST_SINCE_MS);
      // a tenant's lookup reads only its own events; no tenant is '' (never a tenant's id: the contract refuses it)
      const tenant = opts.tenant === undefined ? undefined : (opts.tenant ?? '');
      const statement = tenant === undefined ? find : findTenant;
      return findEvent({ executor, statement, pageSize }, name, since, match, tenant);
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
