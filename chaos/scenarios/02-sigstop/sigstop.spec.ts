/**
 * Chaos scenario 2: a worker SIGSTOPped past its visibility timeout, then resumed. Worker A takes two jobs and freezes
 * (SIGSTOP) while one sits inside its step and the other in its tail; worker B — under the same worker id, as a fixed
 * configured id would be — takes both over once A's leases lapse and holds each of its runs at the same point; then A
 * resumes (SIGCONT) straight into that step's write and that settle while B's runs still hold both rows, so only the
 * claim token can refuse A's writes: not the row's state, not the worker. B's runs go on once the ground truth shows
 * A's writes answered, and finish. Proves, from the ground truth and the final rows: both of A's writes are refused,
 * none accepted, and B's outcome stands.
 */
import { join } from 'node:path';
import { chaosDrivers } from '../../harness/drivers';
import { recordChaos } from '../../harness/report';
import { countFigures, countViolations, recordFinalState } from '../../harness/truth-checks';
import { fleetSpec } from '../../harness/truth-spec';
import { until } from '../../harness/wait';
import type { ChaosWorkerConfig } from '../../harness/worker-child';
import { sigstopRequest, STEP, TAIL } from './jobs';

const SCENARIO = '2 sigstop past the lease';
/**
 * A's leases lapse VT_MS after its claim (no renewal lands: the first is due HEARTBEAT_MS after the run starts, and A is
 * frozen by then). Each run holds HOLD_MS, well under HEARTBEAT_MS, so on SIGCONT the hold's timer is due before the
 * renewal's, and A's first act is the write after the hold — which reaches the driver's fence — not its own check that
 * the lease window passed (which would drop the write unsent).
 */
const VT_MS = 10_000;
const HEARTBEAT_MS = 5_000;
const HOLD_MS = 2_000;
/**
 * A and B run under one worker id (as a process restarted with a fixed configured id carries its predecessor's): the
 * fence must then tell A's run from B's by the claim token alone, not by the worker. They are told apart here by pid.
 */
const WORKER_ID = 'chaos-sigstop-worker';

interface WriteRow {
  pid: number;
  kind: string;
  job_id: string;
  step: string | null;
  accepted: boolean;
  sent_at: string;
}

describe.each(chaosDrivers)('chaos 2: a worker SIGSTOPped past its lease (%s)', (driver) => {
  const spec = fleetSpec();
  const { fleet } = spec;

  it('refuses the resumed worker its step write and its settle; the run that took over stands', async () => {
    const started = Date.now();
    const { db } = spec;
    const run = await spec.createRun(driver);
    const { id } = run;
    const worker = (name: string) => {
      const config: ChaosWorkerConfig = {
        target: run.target,
        truthUrl: db.url,
        run: id,
        name,
        workerId: WORKER_ID,
        concurrency: 4,
        visibilityTimeoutMs: VT_MS,
        heartbeatIntervalMs: HEARTBEAT_MS,
        pollIntervalMs: 50,
        idlePollMaxMs: 200,
      };
      return fleet.add({
        entry: join(__dirname, 'worker.ts'),
        args: [JSON.stringify(config)],
        label: name,
      });
    };
    const a = worker('a');
    const b = worker('b');
    await fleet.startAll();
    // B sits frozen until A has the jobs and is frozen in turn
    b.stop();

    const inStep = sigstopRequest('step', HOLD_MS);
    const inTail = sigstopRequest('tail', HOLD_MS);
    await run.driver.enqueueMany([inStep, inTail]);
    const truth = async (sql: string, values: readonly unknown[] = []): Promise<number> => {
      const { rows } = await db.pool.query<{ n: number }>(
        `select count(*)::int as n from chaos_truth where run = $1 and ${sql}`,
        [id, ...values],
      );
      return rows[0]?.n ?? 0;
    };
    // A holds both, each body telling so once its hold is armed: one inside its step, the other in its tail
    await until(() => a.received('holding').length === 2, {
      what: 'worker A holding both jobs',
      timeoutMs: 30_000,
      everyMs: 5,
    });
    a.stop();
    const stoppedAt = Date.now();
    const held = await Promise.all([run.driver.get(inStep.id), run.driver.get(inTail.id)]);
    // frozen inside the hold, not after it: both runs still A's
    expect(held.map((row) => [row?.state, row?.attempt])).toEqual([
      ['running', 1],
      ['running', 1],
    ]);

    b.cont();
    // B takes both over and holds each run where A's sits, until A's write there has answered
    await until(() => b.received('outlasting').length === 2, {
      what: 'worker B holding both jobs it took over',
      timeoutMs: 60_000,
      everyMs: 20,
    });
    const takenOver = await Promise.all([run.driver.get(inStep.id), run.driver.get(inTail.id)]);
    // B's runs hold both rows as A resumes: its writes meet a running row under another claim
    expect(takenOver.map((row) => [row?.state, row?.attempt])).toEqual([
      ['running', 2],
      ['running', 2],
    ]);
    const stoppedMs = Date.now() - stoppedAt;
    a.cont();
    // A resumes into the step's write and the tail's settle: wait until both answered, then until B finished
    await until(
      async () =>
        (await truth(`pid = $2 and kind in ('save', 'ack', 'nack') and sent_at >= $3`, [
          a.pid,
          stoppedAt,
        ])) >= 2,
      {
        what: "worker A's writes after SIGCONT",
        timeoutMs: 30_000,
        everyMs: 50,
      },
    );
    await until(
      async () => {
        const rows = await Promise.all([run.driver.get(inStep.id), run.driver.get(inTail.id)]);
        return rows.every((row) => row?.state === 'done');
      },
      { what: 'worker B finishing both jobs', timeoutMs: 30_000, everyMs: 50 },
    );
    const statsA = await a.request('stats');
    await fleet.shutdownAll();

    const { rows: writes } = await db.pool.query<WriteRow>(
      `select pid, kind, job_id, step, accepted, sent_at from chaos_truth
        where run = $1 and kind in ('save', 'ack', 'nack') order by seq`,
      [id],
    );
    const describe = (w: WriteRow): string =>
      [w.kind, w.job_id === inStep.id ? 'inStep' : 'inTail', w.step, w.accepted]
        .filter((f) => f !== null)
        .join(' ');
    const resumed = writes.filter((w) => w.pid === a.pid && Number(w.sent_at) >= stoppedAt);
    const tookOver = writes.filter((w) => w.pid === b.pid);
    await recordFinalState(db.pool, id, run.driver, [inStep.id, inTail.id], {
      ...(run.target.schema === undefined ? {} : { schema: run.target.schema }),
    });
    const violations = await countViolations(db.pool, id, [STEP]);
    const figures = await countFigures(db.pool, id);
    const rows = await Promise.all([run.driver.get(inStep.id), run.driver.get(inTail.id)]);
    const steps = await Promise.all([
      run.driver.steps.load(inStep.id),
      run.driver.steps.load(inTail.id),
    ]);
    const counted = await run.driver.introspect?.counters({ job: inStep.name });
    const doneCounted = (counted ?? []).reduce((n, bucket) => n + bucket.done, 0);

    // B's outcome, as it must stand: both done on attempt 2; the step of the job frozen inside it is B's, the other
    // job's step A's (stored before the freeze, replayed by B); B's step write and both its acks landed
    const expected = {
      states: ['done', 'done'],
      attempts: [2, 2],
      storedBy: [[STEP, 2]],
      replayed: [[STEP, 1]],
      tookOver: ['ack inStep true', 'ack inTail true', `save inStep ${STEP} true`],
      doneCounted: 2,
    };
    const actual = {
      states: rows.map((row) => row?.state),
      attempts: rows.map((row) => row?.attempt),
      storedBy: steps[0]!.map((s) => [s.name, s.attempt]),
      replayed: steps[1]!.map((s) => [s.name, s.attempt]),
      tookOver: tookOver.map(describe).sort(),
      doneCounted,
    };
    const outcomeBroken = Object.keys(expected).filter(
      (key) =>
        JSON.stringify(expected[key as keyof typeof expected]) !==
        JSON.stringify(actual[key as keyof typeof actual]),
    ).length;
    const invariants = {
      resumedWritesAccepted: resumed.filter((w) => w.accepted).length,
      staleWritesAccepted: violations.staleWritesAccepted,
      otherRunOutcomeOverturned: outcomeBroken,
      lost: violations.notDone + violations.stepsLost,
      completedTwice: violations.completedTwice,
      stepBodiesRerunAfterStored: violations.stepsRerunAfterStored,
    };
    recordChaos({
      scenario: SCENARIO,
      driver,
      volume: '2 jobs (one frozen inside its step, one in its tail), 2 worker processes',
      faults: [
        `SIGSTOP ${Math.round(stoppedMs / 100) / 10} s (visibility timeout ${VT_MS / 1_000} s), then SIGCONT`,
      ],
      invariants,
      figures: {
        resumedWritesRefused: resumed
          .filter((w) => !w.accepted)
          .map(describe)
          .join(', '),
        staleWritesRefused: figures.staleWritesRefused,
        resumedLeasesLost: (statsA.stats as { leasesLost: number }).leasesLost,
        seconds: Math.round((Date.now() - started) / 1_000),
      },
    });
    expect(actual).toEqual(expected);
    // what A sent once resumed: the frozen step's write and the tail's ack — each refused
    expect(resumed.map(describe).sort()).toEqual(['ack inTail false', `save inStep ${STEP} false`]);
    // each met B's run still holding the row: B settled that job only after A's write was sent and answered
    const metASettledRow = resumed.filter((w) =>
      tookOver.some(
        (t) => t.kind === 'ack' && t.job_id === w.job_id && Number(t.sent_at) <= Number(w.sent_at),
      ),
    );
    expect(metASettledRow.map(describe)).toEqual([]);
    expect(invariants).toEqual({
      resumedWritesAccepted: 0,
      staleWritesAccepted: 0,
      otherRunOutcomeOverturned: 0,
      lost: 0,
      completedTwice: 0,
      stepBodiesRerunAfterStored: 0,
    });
    // the tail's side effect ran once per attempt (A's, then B's): at-least-once outside a step, as documented
    const { rows: tails } = await db.pool.query<{ pid: number; attempt: number }>(
      `select pid, attempt from chaos_truth where run = $1 and kind = 'effect' and step = $2 and job_id = $3 order by attempt`,
      [id, TAIL, inTail.id],
    );
    expect(tails).toEqual([
      { pid: a.pid, attempt: 1 },
      { pid: b.pid, attempt: 2 },
    ]);
  }, 180_000);
});
