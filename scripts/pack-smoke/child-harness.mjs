/**
 * Preloaded into the scratch worker (`node --import`), never part of the app. It holds the process open while its
 * stdin is open — so the smoke can drive a worker whether or not it stays up on its own — and on the line `enqueue`
 * enqueues the README's example through the app's own job handle, retrying while the module is still booting.
 * `PACK_SMOKE_ENQUEUE` = `{ module, format, handle, input }`.
 */
import { createRequire } from 'node:module';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';

const spec = JSON.parse(process.env.PACK_SMOKE_ENQUEUE ?? '{}');
const say = (line) => process.stdout.write(`[pack-smoke] ${line}\n`);

async function loadHandle() {
  const exports =
    spec.format === 'module'
      ? await import(pathToFileURL(spec.module).href)
      : createRequire(spec.module)(spec.module);
  const handle = exports[spec.handle];
  if (typeof handle?.enqueue !== 'function')
    throw new Error(`${spec.module} exports no job ${spec.handle}`);
  return handle;
}

async function enqueue(deadline) {
  let last;
  while (Date.now() < deadline) {
    try {
      const handle = await loadHandle();
      const result = await handle.enqueue(spec.input);
      say(`enqueued ${JSON.stringify(result)}`);
      return;
    } catch (error) {
      last = error; // X_DRIVER_UNAVAILABLE until JobsModule has booted
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  say(
    `enqueue failed: ${last?.code ?? ''} ${String(last?.stack ?? last)
      .split('\n')
      .join(' | ')}`,
  );
}

createInterface({ input: process.stdin }).on('line', (line) => {
  if (line === 'enqueue') void enqueue(Date.now() + 20_000);
});
