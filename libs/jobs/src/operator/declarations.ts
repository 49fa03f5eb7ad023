import type { JobDescriptor } from '../declare/descriptor';
import type { AnyJobHandle } from '../declare/handle';
import { isJobHandle, stampExportNames } from '../declare/job';
import {
  isTaskHandle,
  stampTaskExportNames,
  type TaskDescriptor,
  type TaskHandle,
} from '../declare/task';
import type { JobRegistry } from '../registry/job-registry';

/**
 * What an app declares, as the manifest states it: every job and every task, each by name. JSON as it is — the
 * `x.manifest.json` a deploy writes with `x manifest --app … --json` is one, read back with `--manifest`.
 */
export interface OperatorDeclarations {
  /** Every declared job's manifest row. */
  readonly jobs: readonly JobDescriptor[];
  /** Every declared task's manifest row. */
  readonly tasks: readonly TaskDescriptor[];
}

/** Where {@link inspectManifest} reads declarations: the Nest registries, or handles collected any other way. */
export interface DeclarationSource {
  /** The job registry, or the job handles themselves. */
  readonly jobs: JobRegistry | readonly AnyJobHandle[];
  /** The task registry (anything with `manifest()`), or the task handles; absent: no tasks. */
  readonly tasks?: { manifest(): readonly TaskDescriptor[] } | readonly TaskHandle[];
}

const byName = <T extends { readonly name: string }>(a: T, b: T): number =>
  a.name < b.name ? -1 : a.name > b.name ? 1 : 0;

/**
 * The manifest: every job (queue, tenant, retry, timeouts, priority, concurrency, redaction) and every task (cron,
 * zone, catch-up, the jobs it enqueues) the app declares, each sorted by name. Every task's jobs are listed too, even
 * one registered nowhere else.
 */
export function inspectManifest(source: DeclarationSource): OperatorDeclarations {
  const taskHandles = Array.isArray(source.tasks)
    ? (source.tasks as readonly TaskHandle[])
    : undefined;
  const tasks = taskHandles
    ? taskHandles.map((t) => t.describe())
    : ((source.tasks as { manifest(): readonly TaskDescriptor[] } | undefined)?.manifest() ?? []);
  const jobs = Array.isArray(source.jobs)
    ? (source.jobs as readonly AnyJobHandle[]).map((h) => h.describe())
    : (source.jobs as JobRegistry).manifest();
  const named = new Map(jobs.map((j) => [j.name, j]));
  for (const t of taskHandles ?? []) {
    for (const [handle] of t.entries())
      if (!named.has(handle.name)) named.set(handle.name, handle.describe());
  }
  return { jobs: [...named.values()].sort(byName), tasks: [...tasks].sort(byName) };
}

/**
 * Every job and task handle a loaded module exports — at its top level, or one level down in an exported object or
 * array (`export const jobs = { a, b }`). Unnamed handles take their export name, exactly as `JobsModule.forFeature`
 * stamps them, so the names match the queue rows.
 */
export function collectDeclarations(namespace: Readonly<Record<string, unknown>>): {
  readonly jobs: readonly AnyJobHandle[];
  readonly tasks: readonly TaskHandle[];
} {
  const jobs = new Set<AnyJobHandle>(stampExportNames(namespace));
  const tasks = new Set<TaskHandle>(stampTaskExportNames(namespace));
  for (const value of Object.values(namespace)) {
    if (Array.isArray(value)) {
      for (const item of value as unknown[]) {
        if (isJobHandle(item)) jobs.add(item as unknown as AnyJobHandle);
        if (isTaskHandle(item)) tasks.add(item);
      }
    } else if (
      typeof value === 'object' &&
      value !== null &&
      !isJobHandle(value) &&
      !isTaskHandle(value)
    ) {
      const inner = value as Readonly<Record<string, unknown>>;
      for (const h of stampExportNames(inner)) jobs.add(h);
      for (const h of stampTaskExportNames(inner)) tasks.add(h);
    }
  }
  return { jobs: [...jobs], tasks: [...tasks] };
}
