/**
 * The floors table of `bench:peers`: each of our figures beside the figures that bound it, measured in the same run by
 * the floor pseudo-peers (`floor-*.mjs`) through the same scenarios and processes, and their ratio (ours ÷ floor, the
 * median of the per-run ratios: a rate below 1 is that fraction of the floor, a wait above 1 that multiple of it).
 * Printed after the peers' table, which floors take no part in. Each floor adapter names its rows: `rows`, each
 * `[our figure's key or null, label, unit, digits, the floor's key, what the floor is]`.
 */
import { median } from '../lib.mjs';

/** The order rows print in, by our figure's key (a row without one of ours last). */
const ORDER = [
  'serial',
  'serial statements',
  'serial wal',
  'steady p50',
  'steady p99',
  'rate500 p99',
  'burst p99',
  'ack steady p50',
  'ack steady p99',
  'ack rate500 p99',
  'ack burst p99',
  null,
];

const format = (value, digits) =>
  value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
const of = (column, key) => (key && column.figures[key] ? median(column.figures[key]) : undefined);
const runsOf = (column, key) => (key && column.figures[key]) || [];

/**
 * Ours ÷ floor as the median of the per-run ratios when both were measured in every run: ours and its floor run back
 * to back in each rotation, so a run's pair shares that moment's load; else the ratio of the medians.
 */
function ratioOf(ours, floor, key, floorKey) {
  const [mine, bound] = [runsOf(ours, key), runsOf(floor, floorKey)];
  if (mine.length === bound.length) return median(mine.map((value, run) => value / bound[run]));
  return median(mine) / median(bound);
}

/** One Markdown row of `ours` beside `floor` (— where ours was not measured), or undefined without the floor's. */
function rowOf(ours, floor, [key, label, unit, digits, floorKey, what]) {
  const [mine, bound] = [of(ours, key), of(floor, floorKey)];
  if (bound === undefined) return undefined;
  const cell = mine === undefined ? '—' : format(mine, digits);
  const ratio = mine === undefined ? '—' : `${ratioOf(ours, floor, key, floorKey).toFixed(2)}×`;
  return `| ${unit ? `${label}, ${unit}` : label} | ${cell} | ${format(bound, digits)} | ${floor.label}: ${what} | ${ratio} |`;
}

/**
 * `groups`: `[{ ours: { label, figures }, floors: [{ label, figures, rows }] }]`, one table per column of ours.
 * Prints Markdown.
 */
export function printFloors(groups) {
  for (const { ours, floors } of groups) {
    const rows = floors
      .flatMap((floor) => floor.rows.map((row) => ({ floor, row })))
      .sort((a, b) => ORDER.indexOf(a.row[0]) - ORDER.indexOf(b.row[0]))
      .map(({ floor, row }) => rowOf(ours, floor, row))
      .filter(Boolean);
    if (rows.length === 0) continue;
    console.log(
      [
        '',
        `| ${ours.label} beside its floors (median of runs) | ${ours.label} | floor | the floor is | ours ÷ floor (median of runs' ratios) |`,
        '|---|---|---|---|---|',
        ...rows,
      ].join('\n'),
    );
  }
}
