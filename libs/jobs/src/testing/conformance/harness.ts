import type { JobIntrospection } from '../../driver/introspection';
import { claimAndRescue } from '../../driver/claim-and-rescue';
import type {
  ClaimAndRescueResult,
  ClaimOptions,
  EnqueueRequest,
  JobDriver,
  NackOptions,
  RescueRequest,
} from '../../driver/job-driver';
import { claimOf, type ClaimedJob, type JobState } from '../../driver/job-row';
import type { LeaseStore } from '../../driver/lease-store';
import { uuidv7 } from '../../util/ids';
import { enqueueRequest } from '../enqueue-request';
import { frozenClock, type FrozenClock } from '../frozen-clock';

/** Builds the driver under test over EMPTY storage, reading time from `clock`. Called once per test. */
export type MakeConformanceDriver = (clock: FrozenClock) => Promise<JobDriver> | JobDriver;

/** What a driver declares it lacks. An absent capability is expected present, and its suite runs. */
export interface ConformanceCapabilities {
  /** `false`: the driver has no operator surface, and the suite checks `driver.introspect` is absent. */
  readonly introspect?: boolean;
  /** `false`: the driver has no fleet lease store, and the suite checks `driver.leases` is absent. */
  readonly leases?: boolean;
  /** `false`: the driver has no `ackMany`, and the suite checks it is absent instead of running the ackMany cases. */
  readonly batchAck?: boolean;
}

/** Options of `jobDriverConformance`. */
export interface JobDriverConformanceOptions {
  /** What the driver under test declares it supports; suites needing anything else are skipped. */
  readonly capabilities?: ConformanceCapabilities;
}

/** The queue rows land in unless a test names another. */
export const Q = 'conformance-q';
/** The visibility timeout of a claim unless a test names another (30 s). */
export const VT = 30_000;
/** The worker a claim claims for unless a test names another. */
export const WORKER = 'worker-a';
/** An hour: "far in the future" for a run time. */
export const LATER = 3_600_000;

/** A claim helper's options: one slot (`queue`, `limit`, `names`) unless `slots` is given. */
export type ClaimArgs = Partial<ClaimOptions> & {
  readonly queue?: string;
  readonly limit?: number;
  /** The slot's served names (`ClaimSlot.names`); absent: every name. */
  readonly names?: readonly string[];
  /** True: a rescuing claim (`claimAndRescue`, on the harness's {@link RescuePath}); else `driver.claim`. */
  readonly rescue?: boolean;
};

/**
 * How the harness's rescuing claims reach the driver: `driver` — `claimAndRescue` on the driver as it is (its own
 * `claimRescuing`, one round trip, when it has one); `fallback` — on a view of it without `claimRescuing`, so
 * `claimAndRescue` sends `rescue()` then `claim()`. The suites that rescue run on both.
 */
export type RescuePath = 'driver' | 'fallback';

/** What every suite test reaches through: the current test's driver and clock, and row builders. */
export interface Harness {
  /** The driver of the current test. */
  driver(): JobDriver;
  /** The frozen clock the current test's driver was built on. */
  clock(): FrozenClock;
  /** A fresh UUIDv7; each one sorts after the previous (distinct milliseconds), so id order is mint order. */
  newId(): string;
  /** A request with fresh ids and a unique key, due now on {@link Q}. */
  request(overrides?: Partial<EnqueueRequest>): EnqueueRequest;
  /** Enqueues {@link Harness.request}`(overrides)` and answers the request. */
  enqueue(overrides?: Partial<EnqueueRequest>): Promise<EnqueueRequest>;
  /**
   * One claim pass: {@link WORKER}, {@link VT}, one slot of {@link Q} with limit 10 taking every name, unless
   * overridden.
   */
  claim(args?: ClaimArgs): Promise<readonly ClaimedJob[]>;
  /** {@link Harness.claim} that rescues first (`claimAndRescue`), answering its burials too. */
  rescuing(args?: ClaimArgs, request?: RescueRequest): Promise<ClaimAndRescueResult>;
  /** The driver as the current {@link RescuePath} hands it to `claimAndRescue`. */
  rescueDriver(): Pick<JobDriver, 'claim' | 'rescue' | 'claimRescuing'>;
  /** Sets the path rescuing claims take until the end of the current test (each test starts on `driver`). */
  useRescuePath(path: RescuePath): void;
  /** Enqueues a row and claims it (limit 1 on its queue); fails when the claim took another row. */
  running(overrides?: Partial<EnqueueRequest>, args?: ClaimArgs): Promise<ClaimedJob>;
  /** A row in `state`, reached through the driver's own operations (cancelled needs `introspect`). */
  rowIn(state: JobState, overrides?: Partial<EnqueueRequest>): Promise<EnqueueRequest>;
  /** The driver's operator surface; fails the test with a pointer when it is absent. */
  introspect(): JobIntrospection;
  /** The driver's lease store; fails the test with a pointer when it is absent. */
  leases(): LeaseStore;
}

/** Registers a fresh clock and driver per test (closed afterwards) and answers the harness reading them. */
export function useHarness(makeDriver: MakeConformanceDriver): Harness {
  let current: { driver: JobDriver; clock: FrozenClock; seq: number; path: RescuePath } | undefined;
  const state = (): { driver: JobDriver; clock: FrozenClock; seq: number; path: RescuePath } => {
    if (!current) throw new Error('conformance: the harness is read outside a test');
    return current;
  };

  beforeEach(async () => {
    const clock = frozenClock();
    current = { driver: await makeDriver(clock), clock, seq: 0, path: 'driver' };
  });
  afterEach(async () => {
    const closing = current;
    current = undefined;
    await closing?.driver.close();
  });

  const claimExactly = async (
    request: EnqueueRequest,
    args: ClaimArgs = {},
  ): Promise<ClaimedJob> => {
    const claimed = await h.claim({ queue: request.queue, limit: 1, ...args });
    const row = claimed[0];
    if (claimed.length !== 1 || !row || row.id !== request.id) {
      throw new Error(`conformance: expected to claim job ${request.id} alone`);
    }
    return row;
  };

  const claimOptions = (args: ClaimArgs): ClaimOptions => {
    const { queue = Q, limit = 10, names, rescue: _rescue, ...rest } = args;
    return {
      workerId: WORKER,
      visibilityTimeoutMs: VT,
      slots: [names === undefined ? { queue, limit } : { queue, limit, names }],
      ...rest,
    };
  };

  const h: Harness = {
    driver: () => state().driver,
    clock: () => state().clock,
    newId() {
      const s = state();
      return uuidv7(Date.UTC(2026, 0, 1) + s.seq++);
    },
    request(overrides = {}) {
      return enqueueRequest(
        {
          name: 'conformance.job',
          queue: Q,
          input: { n: 1 },
          runAt: h.clock().now(),
          ...overrides,
        },
        { newId: h.newId },
      );
    },
    async enqueue(overrides) {
      const request = h.request(overrides);
      await h.driver().enqueue(request);
      return request;
    },
    claim(args = {}) {
      if (args.rescue === true) return h.rescuing(args).then((pass) => pass.claimed);
      return h.driver().claim(claimOptions(args));
    },
    rescuing(args = {}, request = {}) {
      return claimAndRescue(h.rescueDriver(), claimOptions(args), request);
    },
    rescueDriver() {
      const d = h.driver();
      if (state().path === 'driver') return d;
      return { claim: (options) => d.claim(options), rescue: (options) => d.rescue(options) };
    },
    useRescuePath(path) {
      state().path = path;
    },
    async running(overrides, args) {
      return claimExactly(await h.enqueue(overrides), args);
    },
    async rowIn(target, overrides = {}) {
      const now = h.clock().now();
      const request = await h.enqueue(
        target === 'delayed' ? { runAt: now + LATER, ...overrides } : overrides,
      );
      if (target === 'ready' || target === 'delayed') return request;
      if (target === 'cancelled') {
        await h.introspect().cancel(request.id);
        return request;
      }
      const row = await claimExactly(request);
      if (target === 'running') return request;
      if (target === 'done') {
        await h.driver().ack(row.id, claimOf(row));
        return request;
      }
      const how: Record<typeof target, NackOptions> = {
        suspended: { ...claimOf(row), kind: 'park', error: 'boom', runAt: now + LATER },
        failed: { ...claimOf(row), kind: 'fail', error: 'boom' },
        dead: { ...claimOf(row), kind: 'dead', error: 'boom' },
      };
      await h.driver().nack(row.id, how[target]);
      return request;
    },
    introspect() {
      const introspect = h.driver().introspect;
      if (!introspect) {
        throw new Error(
          'conformance: driver.introspect is absent; declare capabilities: { introspect: false }',
        );
      }
      return introspect;
    },
    leases() {
      const leases = h.driver().leases;
      if (!leases) {
        throw new Error(
          'conformance: driver.leases is absent; declare capabilities: { leases: false }',
        );
      }
      return leases;
    },
  };
  return h;
}

/** Ids of rows, sorted: for comparing what a pass took without pinning the order a driver answers in. */
export function idsOf(rows: readonly { readonly id: string }[]): string[] {
  return rows.map((r) => r.id).sort();
}
