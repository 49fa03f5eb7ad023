import type { Clock } from '@ultimat3/jobs';
import type { PgExecutor } from '../executor/pg-executor';
import { PgLowWater } from './pg-low-water';
import type { Statements } from './statements';

/** What every part of the driver shares: the executor, the statements, and the clock that decides. */
export interface PgContext {
  readonly executor: PgExecutor;
  readonly sql: Statements;
  /**
   * The `$now` parameter of a time-dependent statement: the injected clock's time, or null so the statement reads
   * the database's `now()`. Either way ONE clock decides every comparison a statement makes.
   */
  now(): string | null;
  /** The same time on this side, for what the driver decides before a statement (`nackState`). */
  nowMs(): number;
  /** The driver's per-queue low water: where its claims start their waiting scans (see {@link PgLowWater}). */
  readonly lowWater: PgLowWater;
}

/** Builds a {@link PgContext}; with no clock, statements read the database clock. */
export function pgContext(executor: PgExecutor, sql: Statements, clock?: Clock): PgContext {
  return {
    executor,
    sql,
    now: () => (clock ? iso(clock.now()) : null),
    nowMs: () => (clock ? clock.now() : Date.now()),
    lowWater: new PgLowWater(),
  };
}

/** Epoch ms as the ISO text a `timestamptz` parameter takes (exact to the millisecond, whatever the client). */
export function iso(ms: number): string {
  return new Date(ms).toISOString();
}

/**
 * The ISO cut-off of a retention: `keepMs` before `nowMs`, but never before the epoch — no row is older, and a keep
 * reaching further (a `deadMs` of `Number.MAX_SAFE_INTEGER` for "keep them") is no longer a time JavaScript can write
 * or PostgreSQL can read, so every sweep failed with it.
 */
export function retentionCutoff(nowMs: number, keepMs: number): string {
  return iso(Math.max(0, nowMs - keepMs));
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Whether `value` can name a row: ids and claims are `uuid` columns, and a value that is not one names none. Checked
 * before a statement, so a stray string answers "no such row" instead of a cast error.
 */
export function isUuid(value: string): boolean {
  return UUID.test(value);
}
