/**
 * A child process of `redis-backend.spec.ts`, run from source through `libs/jobs-pg/test/swc-register.js`: it opens a client on a Redis
 * that cannot be reached and ends it the product's way, then prints `{ outcome, handles }` — the outcome, and the
 * kinds of timers and sockets still alive in this process (`process.getActiveResourcesInfo()`), which must be none.
 * A process of its own, so no other spec's timers are counted. argv: `boot` (a failed `redisBackend` boot) or `close`
 * (`close()` of a driver whose own client failed its first attempt and waits to reconnect).
 */
import { uuidv7 } from '@ultimat3/jobs';
import { redisBackend } from '../src/redis-backend';
import { redisJobDriver } from '../src/redis-driver';

const URL = 'redis://127.0.0.1:1';

async function failedBoot(): Promise<string> {
  return redisBackend({ url: URL, connectTimeoutMs: 500 }).then(
    () => 'booted',
    (error: { code?: string }) => String(error.code),
  );
}

async function closedWhileReconnecting(): Promise<string> {
  const driver = redisJobDriver({ url: URL, prefix: `unreachable-${uuidv7()}` });
  // an enqueue is refused at once (naming the client's state) once the first attempt has failed; one sent before
  // waits in ioredis' queue until the close fails it
  let refused = '';
  while (!refused.includes('reconnecting')) {
    const id = uuidv7();
    driver
      .enqueue({
        ...{
          id,
          runId: uuidv7(),
          name: 'unreachable.job',
          queue: 'q',
          input: {},
          idempotencyKey: id,
        },
        ...{ tenantId: null, enqueuedBy: null, runAt: 0, maxAttempts: 1, priority: 0 },
        ...{ onConflict: 'dedupe', concurrencyKey: null, traceparent: null },
      })
      .catch((error: Error) => {
        refused = error.message;
      });
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  await driver.close();
  return 'closed';
}

async function main(): Promise<void> {
  const outcome = process.argv[2] === 'boot' ? await failedBoot() : await closedWhileReconnecting();
  const handles = process
    .getActiveResourcesInfo()
    .filter((kind) => kind === 'Timeout' || kind === 'TCPSocketWrap');
  process.stdout.write(JSON.stringify({ outcome, handles }));
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
