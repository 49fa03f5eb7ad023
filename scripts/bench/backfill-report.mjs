/** What the throttle bench prints: one block per window, then the two sides pooled and the verdicts. */
import { loadavg } from 'node:os';
import { fmt, spread } from './backfill-windows.mjs';

const within = (t, w) => t >= w.start && t < w.end;
const pct = (part, whole) => (whole === 0 ? 0 : (100 * part) / whole);

/** The other backends' waits sampled in window `w`: `event ×count`, most frequent first. */
function waits(samples) {
  const counts = new Map();
  for (const s of samples) for (const w of s.w) counts.set(w, (counts.get(w) ?? 0) + 1);
  return [...counts]
    .sort((a, b) => b[1] - a[1])
    .map(([w, n]) => `${w} ×${n}`)
    .join(', ');
}

function printWindow(w, probe) {
  const control = probe.filter((l) => l.k === 'req' && within(l.t, w)).map((l) => l.ms);
  const samples = probe.filter((l) => l.k === 'act' && within(l.t, w));
  const queued = w.checkouts.filter((c) => c.queued);
  const s = w.server;
  const title = `${w.kind} ${w.round}`;
  console.log(
    `\n${title} (${((w.end - w.start) / 1_000).toFixed(2)} s, load ${w.load.toFixed(2)})`,
  );
  if (w.kind === 'pass' || w.kind === 'narrow-pass') {
    console.log(
      `  pass: ${w.passSeconds.toFixed(2)} s enqueue to completion, ${w.pages} pages written, first to last ${w.pageSpan.toFixed(2)} s`,
    );
  }
  console.log(`  request (in process, the app's pool): ${fmt(spread(w.latencies))}`);
  console.log(`  process CPU while a request was in flight: ${fmt(spread(w.cpu))}`);
  console.log(`  control (own process and connection): ${fmt(spread(control))}`);
  console.log(
    `  pool: ${w.checkouts.length} checkouts, ${queued.length} found it full (max wait ${Math.max(0, ...queued.map((c) => c.ms)).toFixed(2)} ms); ` +
      `full in ${pct(w.samples.full, w.samples.n).toFixed(1)} % of 5 ms samples, a caller waiting in ${pct(w.samples.waiting, w.samples.n).toFixed(1)} % (max ${w.samples.maxWaiting})`,
  );
  console.log(
    `  process: event-loop delay p99 ${w.loop.p99.toFixed(2)} ms, max ${w.loop.max.toFixed(2)} ms; GC ${w.gc.n} pauses, ${w.gc.totalMs.toFixed(1)} ms (major ${w.gc.majorN}, ${w.gc.majorMs.toFixed(1)} ms), max ${w.gc.maxMs.toFixed(2)} ms; heap ${w.gc.heapMiB.toFixed(1)} MiB at the end`,
  );
  const stmt = (name, c) =>
    `${name} ${c.calls} calls, mean ${c.meanMs.toFixed(3)} ms, max ${c.maxMs.toFixed(2)} ms, ${c.blocksPerCall.toFixed(1)} buffers/call (${c.readPerCall.toFixed(2)} read)`;
  console.log(`  server: ${stmt('request', s.request)}`);
  console.log(`          ${stmt('page read', s.page)}; ${stmt('update', s.update)}`);
  console.log(
    `          ${s.statements} statements, ${s.walRecords} WAL records; other backends waiting (20 ms samples): ${waits(samples) || 'none'}`,
  );
}

/**
 * Of the requests in `side` whose in-process CPU exceeded `cpuAbove` (idle's p99), how many overlapped a page read, an
 * UPDATE (the sweep's phases; a pass records only its UPDATEs) or a GC pause, and how many none of them.
 */
function attribute(side, phases, cpuAbove) {
  const heavy = side.flatMap((w) => w.requests).filter((r) => r.cpu > cpuAbove);
  const pauses = side.flatMap((w) => w.gc.pauses);
  const overlaps = (r, spans) => spans.some((p) => p.a < r.b && p.b > r.a);
  const reads = phases.filter((p) => p.k === 'read');
  const updates = phases.filter((p) => p.k === 'update');
  let none = 0;
  const count = { read: 0, update: 0, gc: 0 };
  for (const r of heavy) {
    const hit = { read: overlaps(r, reads), update: overlaps(r, updates), gc: overlaps(r, pauses) };
    for (const k of Object.keys(count)) if (hit[k]) count[k]++;
    if (!hit.read && !hit.update && !hit.gc) none++;
  }
  return `${heavy.length} requests used more process CPU than idle's p99: ${count.read} overlapped a page read, ${count.update} an UPDATE, ${count.gc} a GC pause, ${none} none of them`;
}

function printSide(name, side, probe, slowerThan = Infinity) {
  const latencies = side.flatMap((w) => w.latencies);
  const pauses = side.flatMap((w) => w.gc.pauses);
  const slow = side.flatMap((w) => w.requests).filter((r) => r.b - r.a > slowerThan);
  const slowInGc = slow.filter((r) => pauses.some((g) => g.a < r.b && g.b > r.a)).length;
  const control = probe
    .filter((l) => l.k === 'req' && side.some((w) => within(l.t, w)))
    .map((l) => l.ms);
  const checkouts = side.flatMap((w) => w.checkouts);
  return {
    name,
    request: spread(latencies),
    cpu: spread(side.flatMap((w) => w.cpu)),
    control: spread(control),
    queued: checkouts.filter((c) => c.queued).length,
    checkouts: checkouts.length,
    loopMax: Math.max(...side.map((w) => w.loop.max)),
    gcMax: Math.max(...side.map((w) => w.gc.maxMs)),
    gcMs: side.reduce((sum, w) => sum + w.gc.totalMs, 0) / Math.max(1, side.length),
    slow: slow.length,
    slowInGc,
  };
}

/** Prints every window, the pooled sides, and whether the must-show holds. */
export function printReport({ windows, phases = [], probe, config }) {
  const { ROWS, RATE, BATCH, ROUNDS, POOL, RPS, EXPECTED_S } = config;
  console.log(
    `\nBackfill throttle: ${ROWS.toLocaleString('en-US')} rows, batch ${BATCH} (one statement a page; raw windows: plain SQL, no hydration; narrow: the id only), rate ${RATE}/s (expected ${EXPECTED_S.toFixed(1)} s ± 10 %); ` +
      `pool ${POOL}; request ${RPS}/s; ${ROUNDS} idle/pass rounds`,
  );
  for (const w of windows) printWindow(w, probe);
  const of = (kind) => windows.filter((w) => w.kind === kind);
  const idle = printSide('idle', of('idle'), probe);
  const sides = [idle, printSide('pass', of('pass'), probe, idle.request.p99)];
  for (const kind of ['bare', 'raw', 'narrow', 'narrow-pass']) {
    if (of(kind).length > 0) sides.push(printSide(kind, of(kind), probe, idle.request.p99));
  }
  const idleSlow = printSide('idle', of('idle'), probe, idle.request.p99);
  Object.assign(idle, { slow: idleSlow.slow, slowInGc: idleSlow.slowInGc });
  console.log('\nPooled over the rounds');
  for (const side of sides) {
    console.log(`  ${side.name} request: ${fmt(side.request)}`);
    console.log(`  ${side.name} control: ${fmt(side.control)}`);
    console.log(`  ${side.name} process CPU in flight: ${fmt(side.cpu)}`);
    console.log(
      `  ${side.name} pool: ${side.queued} of ${side.checkouts} checkouts found it full; event-loop delay max ${side.loopMax.toFixed(2)} ms; ` +
        `GC ${side.gcMs.toFixed(0)} ms a window, max pause ${side.gcMax.toFixed(2)} ms; ` +
        `${side.slow} requests slower than idle p99, ${side.slowInGc} of them overlapping a GC pause`,
    );
    if (side.name !== 'idle') {
      console.log(`  ${side.name} ${attribute(of(side.name), phases, idle.cpu.p99)}`);
    }
  }
  console.log('');
  for (const side of sides.slice(1)) {
    const ratio = side.request.p99 / idle.request.p99;
    const controlRatio = side.control.p99 / idle.control.p99;
    const cpuRatio = side.cpu.p99 / idle.cpu.p99;
    const rounds = of(side.name).map((w) => {
      const before = of('idle')
        .filter((i) => i.round === w.round && i.end <= w.start + 1)
        .at(-1);
      return (spread(w.latencies).p99 / spread(before.latencies).p99).toFixed(2);
    });
    console.log(
      `  request p99 ${side.name} / idle: ${ratio.toFixed(2)}×${side.name.endsWith('pass') ? ` (${ratio <= 2 ? 'within' : 'OVER'} 2×)` : ''}; ` +
        `per round against the idle window before it ${rounds.join(', ')}; control ${controlRatio.toFixed(2)}×; ` +
        `process CPU in flight p99 ${side.cpu.p99.toFixed(2)} ms (${cpuRatio.toFixed(2)}× idle)`,
    );
  }
  for (const w of windows.filter((x) => x.kind === 'pass' || x.kind === 'narrow-pass')) {
    const off = ((w.passSeconds - EXPECTED_S) / EXPECTED_S) * 100;
    console.log(
      `  ${w.kind} ${w.round}: ${w.passSeconds.toFixed(2)} s (${off >= 0 ? '+' : ''}${off.toFixed(1)} %, ${Math.abs(off) <= 10 ? 'within' : 'OUTSIDE'} ± 10 %)`,
    );
  }
  console.log(
    `  load average now ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
}
