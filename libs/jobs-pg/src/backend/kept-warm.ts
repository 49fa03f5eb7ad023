import type { Statements } from '../driver/statements';

/**
 * Parameters of each statement the warm plans, as SQL literals: plausible values of the types the statement casts its
 * parameters to (a plan is built for them and never run). A statement whose parameters change must change here too;
 * `kept-warm.spec.ts` runs the warm on a migrated database and fails when it no longer plans.
 */
const ENQUEUE_HAND_OFF_ARGS = [
  'null',
  `'00000000-0000-7000-8000-000000000000'`,
  `'00000000-0000-7000-8000-000000000000'`,
  `''`,
  `''`,
  `'{}'`,
  `''`,
  'null',
  'null',
  'now()',
  '1',
  '0',
  'null',
  'null',
  'null',
];
const CLAIM_WOKEN_ARGS = ['null', `''`, `''`, `''`, '1', '0', 'null', `'{}'`, '1', 'false'];

/** A statement's placeholder: `$` and its number. */
const PLACEHOLDER = /\$(\d+)/g;

/**
 * `explain` of one statement with `args` in place of its placeholders: planned, never executed, and nothing prepared.
 * Not `prepare` and `explain execute`: pg_stat_statements keeps the text it first met for a statement, and for a
 * prepared one that is the whole `prepare … as …` — every enqueue would then be listed under the warm's name. With
 * literals in place of parameters the explained statement is another statement to pg_stat_statements, never
 * executed, so none of its text is kept. A placeholder with no argument throws: the args must follow the statement.
 */
function planned(text: string, args: readonly string[]): string {
  const bound = text.replace(PLACEHOLDER, (_, n: string) => {
    const arg = args[Number(n) - 1];
    if (arg === undefined) throw new RangeError(`keptWarmSql: no argument for $${n}`);
    return arg;
  });
  return `explain ${bound.trim()};`;
}

/**
 * What the boot sends on each connection the pool keeps (one simple-protocol round trip): the enqueue that may hand off
 * and the woken claim, each planned with `explain` and let go, so the connection's backend has read the
 * tables', indexes' and functions' catalog entries before the app's first job needs them. A fresh backend spent ~15 ms
 * doing so on its first enqueue (a process's first `enqueue()` 33-37 ms, 18-24 after the warm, 2026-12-04: docs/
 * performance.md, "After a quiet spell"). Nothing is written: `explain` without `analyze` plans and stops.
 */
export function keptWarmSql(sql: Pick<Statements, 'enqueueHandOff' | 'claimWoken'>): string {
  return [
    planned(sql.enqueueHandOff, ENQUEUE_HAND_OFF_ARGS),
    planned(sql.claimWoken, CLAIM_WOKEN_ARGS),
  ].join('\n');
}
