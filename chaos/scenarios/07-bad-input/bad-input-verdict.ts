/**
 * Scenario 7's invariants, counted from the cases' answers, what the job bodies recorded and the rows the driver
 * holds at the end. Each is 0 where the value contract holds.
 */
import type { CaseResult } from './bad-input-table';

/** A row as the app process reads it (`state: 'unreadable'` when the driver could not answer it). */
export interface SeenRow {
  readonly id: string;
  readonly state: string;
  readonly attempt: number;
  readonly lastError: string | null;
}

/** The ids the app process wrote, by what it expects of them. */
export interface SeededIds {
  readonly before: string[];
  readonly far: string[];
  readonly sleeper: string;
  readonly ghost: string[];
  readonly fragile: string[];
}

/** Everything the verdict reads. */
export interface BadInputOutcome {
  readonly cases: readonly CaseResult[];
  readonly ids: SeededIds;
  /** Every good job's id (before and after the bad input). */
  readonly goods: readonly string[];
  /** `<job id>/<what>` the bodies recorded, with how many times. */
  readonly ran: ReadonlyMap<string, number>;
  readonly far: readonly (SeenRow | null)[];
  readonly sleeper: SeenRow | null | undefined;
  readonly ghost: readonly (SeenRow | null)[];
  readonly fragile: readonly (SeenRow | null)[];
  readonly overflows: number;
  readonly alive: boolean;
}

/** Each invariant's count of violations. */
export function badInputInvariants(o: BadInputOutcome): Record<string, number> {
  const echo = o.cases.find((c) => c.expect === 'stored')?.id;
  const ran = (id: string, what: string): number => o.ran.get(`${id}/${what}`) ?? 0;
  return {
    'cases answered other than documented': o.cases.filter((c) => c.got !== c.expect).length,
    'uncoded errors': o.cases.filter((c) => c.got.startsWith('uncoded')).length,
    'good jobs not done': o.goods.filter((id) => ran(id, 'good') === 0).length,
    'good jobs run twice': o.goods.filter((id) => ran(id, 'good') > 1).length,
    'NUL payloads not stored or changed': echo === undefined || ran(echo, 'intact') === 0 ? 1 : 0,
    'far-future rows not waiting':
      o.far.filter((r) => r?.state !== 'delayed').length +
      o.ids.far.filter((id) => ran(id, 'good') > 0).length,
    '40-day sleep not suspended':
      o.sleeper?.state === 'suspended' && ran(o.ids.sleeper, 'woke early') === 0 ? 0 : 1,
    'unknown-name rows not left waiting': o.ghost.filter(
      (r) => r?.state !== 'ready' || r.attempt !== 0,
    ).length,
    'corrupt rows not buried with X_JOB_INPUT_INVALID': o.fragile.filter(
      (r) => r?.state !== 'dead' || !r.lastError?.startsWith('X_JOB_INPUT_INVALID'),
    ).length,
    'corrupt rows whose body ran': o.ids.fragile.filter((id) => ran(id, 'fragile ran') > 0).length,
    TimeoutOverflowWarnings: o.overflows,
    'worker process exits': o.alive ? 0 : 1,
  };
}
