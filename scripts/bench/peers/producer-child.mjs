/**
 * One producer process of a peer, spawned by `scenarios.mjs` with an IPC channel. argv: <peer> <context as JSON>.
 *
 * `{ type: 'run', queue, count, intervalMs, startAt, base }` enqueues `count` jobs one `enqueue()` each, job i due at
 * `startAt + i × intervalMs` (epoch ms; intervalMs 0 fires them all at once), each with input `{ n: base + i, t }`,
 * `t` read just before its `enqueue()` call. The calls are not awaited one by one: arrivals keep their schedule
 * whatever an enqueue takes. Answers, once all settled, `{ lateMs, acked }`: how far behind schedule the latest call
 * went out, and each call's wait from just before it to its promise resolving (ms; the enqueue acknowledged — for a
 * PostgreSQL peer, committed).
 */
const [peer, contextJson] = process.argv.slice(2);
const adapter = await import(`./${peer}.mjs`);
const producer = await adapter.producer(JSON.parse(contextJson));
const now = () => performance.timeOrigin + performance.now();
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));

async function run({ queue, count, intervalMs, startAt, base }) {
  const calls = [];
  const acked = [];
  let lateMs = 0;
  for (let i = 0; i < count; i++) {
    const due = startAt + i * intervalMs;
    if (intervalMs > 0 && due > now()) await sleep(due - now());
    const t = now();
    lateMs = Math.max(lateMs, t - due);
    calls.push(producer.enqueue(queue, { n: base + i, t }).then(() => acked.push(now() - t)));
  }
  await Promise.all(calls);
  return { lateMs, acked };
}

process.on('message', async (message) => {
  if (message.type === 'run') process.send({ id: message.id, ...(await run(message)) });
  if (message.type === 'stop') {
    await producer.close();
    process.send({ id: message.id }, () => process.exit(0)); // exit once the answer is out
  }
});

// one call first, so the connection is open before anything is timed
await producer.enqueue('warm', { n: -1 - process.pid, t: now() });
process.send({ type: 'ready' });
