/**
 * One worker process of a peer (ours or another), spawned by `scenarios.mjs` with an IPC channel.
 *
 * argv: <peer> <context as JSON> <queue> <mode: "serve" | "drain"> [expected jobs]. It runs the peer's worker at
 * concurrency 10 on `queue`. Every job's input is `{ n, t }`, `t` the producer's clock just before `enqueue()`.
 * - serve: each body start records `now − t` (ms; both clocks are `performance.timeOrigin + performance.now()`).
 *   `{ type: 'peek' }` answers the count so far; `{ type: 'collect' }` answers the latencies and empties them.
 * - drain: sends `loaded`, waits for `{ type: 'go' }`, then starts the worker and answers `{ type: 'started' }` with
 *   when the first and the last of `expected` bodies started, and `marks`: when every 1,000th did (`drain-phases.mjs`).
 * Every answer carries the asker's `id` and the process's memory (`process.memoryUsage()`); `{ type: 'stop' }` stops
 * the worker gracefully and exits.
 */
const [peer, contextJson, queue, mode, expectedText] = process.argv.slice(2);
const adapter = await import(`./${peer}.mjs`);
const context = JSON.parse(contextJson);
const expected = Number(expectedText ?? 0);
const now = () => performance.timeOrigin + performance.now();

let latencies = [];
let count = 0;
let first;
const marks = [];
let announce;

function onJob(data) {
  const at = now();
  if (mode === 'serve') latencies.push(at - data.t);
  else {
    count++;
    first ??= at;
    if (count % 1_000 === 0) marks.push(at);
    if (count === expected) announce?.({ first, last: at, marks });
  }
}

const reply = (id, body, sent) =>
  process.send({ id, memory: process.memoryUsage(), ...body }, sent);

let running;
process.on('message', async (message) => {
  if (message.type === 'peek') reply(message.id, { count: latencies.length });
  if (message.type === 'collect') {
    reply(message.id, { latencies });
    latencies = [];
  }
  if (message.type === 'go') {
    const done = new Promise((resolve) => (announce = resolve));
    running = await adapter.worker(context, { queue, concurrency: 10, onJob });
    reply(message.id, await done);
  }
  if (message.type === 'stop') {
    await running?.stop();
    reply(message.id, {}, () => process.exit(0)); // exit once the answer is out
  }
});

if (mode === 'serve') running = await adapter.worker(context, { queue, concurrency: 10, onJob });
process.send({ type: 'ready' });
