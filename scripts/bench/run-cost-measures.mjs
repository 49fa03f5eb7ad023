/**
 * How `run-cost.mjs` measures what a pass costs its process: the CPU it burns, the promises it makes and the bytes it
 * allocates.
 */
import { createHook } from 'node:async_hooks';
import { Session } from 'node:inspector/promises';

/** Counts the promises made while `fn` runs. */
export async function promisesOf(fn) {
  let made = 0;
  const hook = createHook({
    init(_id, type) {
      if (type === 'PROMISE') made++;
    },
  });
  hook.enable();
  try {
    await fn();
  } finally {
    hook.disable();
  }
  return made;
}

/**
 * The bytes allocated while `fn` runs, by V8's sampling heap profiler (one sample per ~1 KB allocated on average),
 * counting what the young and the old generation collected meanwhile too: garbage is what the scavenges pay for.
 */
export async function bytesOf(fn) {
  const session = new Session();
  session.connect();
  await session.post('HeapProfiler.enable');
  await session.post('HeapProfiler.startSampling', {
    samplingInterval: 1024,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: true,
  });
  await fn();
  const { profile } = await session.post('HeapProfiler.stopSampling');
  session.disconnect();
  let bytes = 0;
  const walk = (node) => {
    bytes += node.selfSize;
    for (const child of node.children) walk(child);
  };
  walk(profile.head);
  return bytes;
}

/** The CPU `fn` burns (µs), and what it answers. */
export async function cpuOf(fn) {
  const before = process.cpuUsage();
  const answer = await fn();
  const used = process.cpuUsage(before);
  return { cpu: used.user + used.system, answer };
}
