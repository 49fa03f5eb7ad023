import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { SCHEDULER_LEASE_KEY, type LeaseStore } from '@ultimat3/jobs';
import type { ChaosTarget } from '../../harness/drivers';
import { ChaosProcess, type ChaosMessage } from '../../harness/processes';
import { startTcpProxy, type TcpProxy } from '../../harness/tcp-proxy';
import type { EpisodeCommand, EpisodeCounts } from './episode-scheduler';
import type { SchedulerChildConfig } from './scheduler-child';

/** Where Debian's `libfaketime` package puts the preload library (the MT build suits Node's threads). */
const FAKETIME_LIBS = [
  '/usr/lib/x86_64-linux-gnu/faketime/libfaketimeMT.so.1',
  '/usr/lib/aarch64-linux-gnu/faketime/libfaketimeMT.so.1',
  '/usr/lib/faketime/libfaketimeMT.so.1',
];

/** The environment that runs a process `skewMs` off the true wall clock (its monotonic clock left alone). */
export function faketimeEnv(skewMs: number): Record<string, string> {
  const lib = FAKETIME_LIBS.find((path) => existsSync(path));
  if (lib === undefined) {
    throw new Error(
      'libfaketime is not installed: apt-get install faketime (scenario 4 skews one scheduler process with it).',
    );
  }
  const seconds = Math.round(skewMs / 1000);
  return {
    LD_PRELOAD: lib,
    FAKETIME: `${seconds >= 0 ? '+' : ''}${seconds}s`,
    DONT_FAKE_MONOTONIC: '1',
  };
}

/** One of the three scheduler slots: its proxy to the server, its current process, and its skew. */
export interface SchedulerSlot {
  readonly index: number;
  readonly proxy: TcpProxy;
  readonly process: ChaosProcess;
  /** The skew its processes run with (0 for an honest clock). */
  readonly skewMs: number;
  /** The holder id of its current process. */
  holderId: string;
}

/** The target with its server port swapped for the proxy's. */
function throughProxy(target: ChaosTarget, port: number): ChaosTarget {
  const url = new URL(target.url);
  url.hostname = '127.0.0.1';
  url.port = String(port);
  return { ...target, url: url.toString() };
}

/** Starts a slot: its proxy in front of the run's server, then its first process. */
export async function startSlot(
  target: ChaosTarget,
  index: number,
  options: { readonly ttlMs: number; readonly skewMs: number },
): Promise<SchedulerSlot> {
  const proxy = await startTcpProxy({ targetPort: Number(new URL(target.url).port) });
  const config: SchedulerChildConfig = {
    target: throughProxy(target, proxy.port),
    slot: index,
    ttlMs: options.ttlMs,
  };
  const process = new ChaosProcess({
    entry: join(__dirname, 'scheduler-child.ts'),
    args: [JSON.stringify(config)],
    label: `scheduler-${index}`,
    env: options.skewMs === 0 ? {} : faketimeEnv(options.skewMs),
  });
  const ready = await process.start();
  return { index, proxy, process, skewMs: options.skewMs, holderId: String(ready['holderId']) };
}

/** Sends one command and fails on an error reply. */
export async function ask(
  slot: SchedulerSlot,
  type: string,
  fields: Record<string, unknown> = {},
  timeoutMs = 30_000,
): Promise<ChaosMessage> {
  const reply = await slot.process.request(type, timeoutMs, fields);
  if (reply['error'] !== undefined) {
    throw new Error(`scheduler-${slot.index} ${type}: ${String(reply['error'])}`);
  }
  return reply;
}

/** Tells a slot's process about the running episode: prepared, its clock running from the episode's epoch, started. */
export async function joinEpisode(
  slot: SchedulerSlot,
  command: EpisodeCommand,
  epochMonoNs: string,
): Promise<number> {
  const prepared = await ask(slot, 'prepare', { command });
  await ask(slot, 'go', { epochMonoNs });
  await ask(slot, 'start');
  return Number(prepared['skewMs']);
}

/** Starts a fresh process in a slot whose process was SIGKILLed (it released nothing). */
export async function replaceProcess(slot: SchedulerSlot): Promise<void> {
  const ready = await slot.process.start();
  slot.holderId = String(ready['holderId']);
}

/** Halts a slot's episode scheduler and answers what it counted (nothing when it had none). */
export async function haltSlot(slot: SchedulerSlot): Promise<EpisodeCounts | undefined> {
  const reply = await ask(slot, 'halt', {}, 90_000);
  return reply['counts'] as EpisodeCounts | undefined;
}

/** The slot whose process holds the scheduler lease now (by the server's clock), or undefined. */
export async function leaderSlot(
  leases: LeaseStore,
  slots: readonly SchedulerSlot[],
): Promise<SchedulerSlot | undefined> {
  const holders = await leases.holders(SCHEDULER_LEASE_KEY);
  const holder = holders[0]?.holder;
  return slots.find((s) => s.holderId === holder);
}
