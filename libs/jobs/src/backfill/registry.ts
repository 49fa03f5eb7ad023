import type {
  BackfillDescriptor,
  BackfillInput,
  BackfillResult,
} from '../declare/backfill-definition';
import type { JobHandle } from '../declare/handle';
import { describeBackfill, type ResolvedBackfill } from './resolved';

/**
 * The origin of every handle `backfill()` returned: how `isBackfill` tells one from a plain `job()` or a look-alike.
 * Keyed weakly by the handle, so it holds nothing a collected handle would need.
 */
const origin = new WeakMap<object, ResolvedBackfill>();

/**
 * Every backfill declared in this process, in declaration order: `registeredBackfills()` reads it, so an app
 * registers nothing twice — a declaration that has to be registered a second time is one half the apps forget. It is
 * the backfill half of the declaration table (`declare/ambient.ts`): names are already seated there as job names.
 */
const declared: object[] = [];

/** Stamps `handle` as the backfill `resolved` declares (internal to `backfill()`). */
export function stampBackfill(handle: object, resolved: ResolvedBackfill): void {
  origin.set(handle, resolved);
  declared.push(handle);
}

/** Whether `value` is a handle `backfill()` returned: a plain `job()` is not, and neither is a look-alike. */
export function isBackfill(value: unknown): boolean {
  return typeof value === 'object' && value !== null && origin.has(value);
}

/** The resolved declaration behind a backfill handle, or undefined for anything else. */
export function backfillOf(value: unknown): ResolvedBackfill | undefined {
  return typeof value === 'object' && value !== null ? origin.get(value) : undefined;
}

/** The manifest row of every backfill declared in this process, in declaration order. */
export function registeredBackfills(): BackfillDescriptor[] {
  return declared.map((handle) => describeBackfill(origin.get(handle) as ResolvedBackfill));
}

/** The handle of the backfill declared under `name` in this process (what a command enqueues), if any. */
export function backfillHandleNamed(
  name: string,
): JobHandle<BackfillInput, BackfillInput, BackfillResult> | undefined {
  const found = declared.find((handle) => origin.get(handle)?.name === name);
  return found as JobHandle<BackfillInput, BackfillInput, BackfillResult> | undefined;
}
