import { appendFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chaosSize, type ChaosSize } from './size';

/**
 * What one scenario run proved: the volume it ran, the faults it injected, and every invariant's count of violations
 * (zero where the guarantee says zero). Figures are extra measurements worth printing (durations, retries, rates).
 */
export interface ChaosReport {
  /** The scenario's number and name, e.g. `1 worker kills`. */
  readonly scenario: string;
  /** The driver the scenario ran on. */
  readonly driver: 'pg' | 'redis' | 'memory';
  /** What ran, e.g. `10,000 jobs x 3 steps, 3 workers`. */
  readonly volume: string;
  /** Each fault injected, e.g. `SIGKILL x5`. */
  readonly faults: readonly string[];
  /** Each invariant's violation count. */
  readonly invariants: Readonly<Record<string, number>>;
  /** Further figures worth printing. */
  readonly figures?: Readonly<Record<string, number | string>>;
}

/** Where reports are appended, one JSON line each: `chaos/.results/<size>.jsonl` (git-ignored). */
export function chaosResultsFile(size: ChaosSize = chaosSize()): string {
  return join(__dirname, '..', '.results', `${size}.jsonl`);
}

/**
 * Prints the report (so a `jest` run shows it) and appends it to the results file that `npm run test:chaos`
 * summarises at the end of its run.
 */
export function recordChaos(report: ChaosReport): void {
  const size = chaosSize();
  const file = chaosResultsFile(size);
  mkdirSync(join(file, '..'), { recursive: true });
  appendFileSync(file, `${JSON.stringify({ ...report, size, at: new Date().toISOString() })}\n`);
  const lines = [
    `chaos [${size}] ${report.scenario} on ${report.driver}: ${report.volume}`,
    `  faults: ${report.faults.join(', ') || 'none'}`,
    ...Object.entries(report.invariants).map(([name, count]) => `  ${name}: ${count}`),
    ...Object.entries(report.figures ?? {}).map(([name, value]) => `  (${name}: ${value})`),
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}
