/**
 * The side-by-side table of `bench:peers`: one row per figure, one column per peer, each cell the median of the runs
 * and its ratio to the best peer on that row (1.00× is the best; above 1 a wait or a cost that much larger, below 1 a
 * rate that much smaller).
 */
import { median } from '../lib.mjs';

/** [key, label, unit, better: 'low' | 'high', digits] */
const ROWS = [
  ['steady p50', 'pickup, 20/s from another process: p50', 'ms', 'low', 1],
  ['steady p99', 'pickup, 20/s: p99', 'ms', 'low', 1],
  ['steady p100', 'pickup, 20/s: max', 'ms', 'low', 1],
  ['rate500 p99', 'pickup, 500/s from 4 processes: p99', 'ms', 'low', 1],
  ['burst p99', 'pickup, burst of 1,000: p99', 'ms', 'low', 1],
  ['burst drain p99', "burst p99's bound: 980 jobs at the peer's drain rate", 'ms', 'low', 1],
  ['bulk', 'bulk enqueue, batches of 1,000', 'jobs/s', 'high', 0],
  ['drain', 'drain 50,000 no-op jobs, one process', 'jobs/s', 'high', 0],
  ['serial', 'serial enqueue', 'jobs/s', 'high', 0],
  ['idle', 'idle worker, statements (Redis: commands) a minute', '/min', 'low', 0],
  ['drain rss', 'worker RSS at the end of the drain', 'MB', 'low', 0],
];

const format = (value, digits) =>
  value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });

/** `columns`: `[{ label, figures: { key: number[] } }]`. Prints a Markdown table. */
export function printTable(columns) {
  const lines = [
    `| figure (median of runs; ratio to the best) | ${columns.map((c) => c.label).join(' | ')} |`,
    `|---|${columns.map(() => '---').join('|')}|`,
  ];
  for (const [key, label, unit, better, digits] of ROWS) {
    const values = columns.map((c) => (c.figures[key] ? median(c.figures[key]) : undefined));
    const known = values.filter((v) => v !== undefined);
    if (known.length === 0) continue;
    const best = better === 'low' ? Math.min(...known) : Math.max(...known);
    const cells = values.map((v) => {
      if (v === undefined) return '—';
      const ratio = best === 0 ? (v === 0 ? 1 : Infinity) : v / best;
      const text = `${format(v, digits)} (${ratio.toFixed(2)}×)`;
      return v === best ? `**${text}**` : text;
    });
    lines.push(`| ${label}, ${unit} | ${cells.join(' | ')} |`);
  }
  console.log(`\n${lines.join('\n')}`);
}
