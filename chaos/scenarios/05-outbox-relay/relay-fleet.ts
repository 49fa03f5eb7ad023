/**
 * Scenario 5's two relay slots: each runs one relay process at a time, armed with the next kill point of the run's
 * seeded plan; when the process kills itself, the slot counts the kill and starts the next incarnation, until the spec
 * says the run is finished (then the incarnation alive is left for the spec to shut down). Relays armed with `none`
 * finish the run; one of them dying is a failure.
 */
import { join } from 'node:path';
import { ChaosProcess } from '../../harness/processes';
import type { ChaosRandom } from '../../harness/schedule';
import { until } from '../../harness/wait';
import type { KillPoint, RelayConfig } from './relay';

/** The kill points of the matrix. */
export const KILL_POINTS: readonly Exclude<KillPoint, 'none'>[] = [
  'before-publish',
  'after-publish',
  'during-mark',
];

type Fault = Pick<RelayConfig, 'kill' | 'killAt' | 'markJitterMs'>;

/** `perPoint` faults of each kill point in a seeded order, each at a seeded publish (1–30) and mark jitter (0–3 ms). */
export function killPlan(random: ChaosRandom, perPoint: number): Fault[] {
  return KILL_POINTS.flatMap((kill) => Array.from({ length: perPoint }, () => kill))
    .map((kill) => ({ kill, order: random.next() }))
    .sort((a, b) => a.order - b.order)
    .map(({ kill }) => ({ kill, killAt: 1 + random.int(30), markJitterMs: random.int(4) }));
}

/** Two relay slots working through a kill plan. */
export class RelayFleet {
  /** Kills that happened, per kill point. */
  readonly killed: Record<string, number> = Object.fromEntries(KILL_POINTS.map((p) => [p, 0]));
  /** Relay processes started so far. */
  incarnations = 0;
  /** Relays alive with a kill point not yet reached. */
  armed = 0;
  /** Set once a slot failed (a relay died unarmed, or would not start). */
  failed = false;
  readonly #live = new Set<ChaosProcess>();
  #finished = false;
  #slots: Promise<void> | undefined;

  constructor(
    private readonly base: Omit<RelayConfig, 'claimant' | keyof Fault>,
    private readonly faults: Fault[],
    private readonly timeoutMs: number,
  ) {}

  /** Faults not yet handed to a relay. */
  get faultsLeft(): number {
    return this.faults.length;
  }

  /** Starts both slots. */
  start(): void {
    this.#slots = Promise.all([this.#slot('relay-a'), this.#slot('relay-b')]).then(() => undefined);
    this.#slots.catch(() => {
      this.failed = true;
    });
  }

  /** Ends the slots (no restart after this) and shuts down the relays alive (each drains). */
  async finish(): Promise<void> {
    this.#finished = true;
    await this.#slots;
    await Promise.all([...this.#live].map((p) => p.shutdown()));
    this.#live.clear();
  }

  /** SIGKILLs whatever is still alive (a failed spec's cleanup). */
  async kill(): Promise<void> {
    this.#finished = true;
    await Promise.all([...this.#live].map((p) => p.kill('SIGKILL')));
  }

  async #slot(slot: string): Promise<void> {
    while (!this.#finished) {
      const fault = this.faults.shift() ?? { kill: 'none' as const, killAt: 0, markJitterMs: 0 };
      const config: RelayConfig = {
        ...this.base,
        ...fault,
        claimant: `${slot}-${++this.incarnations}`,
      };
      const relay = new ChaosProcess({
        entry: join(__dirname, 'relay.ts'),
        args: [JSON.stringify(config)],
        label: config.claimant,
      });
      await relay.start();
      this.#live.add(relay);
      if (fault.kill !== 'none') this.armed++;
      const ended = until(() => this.#finished, {
        what: 'the run to finish',
        timeoutMs: this.timeoutMs,
        everyMs: 50,
      }).then(() => 'finished' as const);
      ended.catch(() => undefined); // a relay that exits first leaves this poll to end on its own
      const code = await Promise.race([relay.exited, ended]);
      if (code === 'finished') return;
      this.#live.delete(relay);
      if (fault.kill === 'none')
        throw new Error(`relay ${config.claimant} died unarmed:\n${relay.tail()}`);
      this.armed--;
      this.killed[fault.kill] = (this.killed[fault.kill] ?? 0) + 1;
    }
  }
}
