/**
 * A forked bench child (a producer or a worker process) that answers `{ id }`-tagged requests: `spawnChild(path,
 * args)` resolves once the child sent its first message (`ready`, `loaded`, …), kept as `first`.
 */
import { fork } from 'node:child_process';
import { basename } from 'node:path';

let asked = 0;

/** Forks `path` with `args`; `ask(message)` answers the child's reply tagged with the same id. */
export async function spawnChild(path, args) {
  const child = fork(path, args, { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const pending = new Map();
  child.on('message', (message) => {
    if (message.id !== undefined) pending.get(message.id)?.(message);
  });
  const first = await new Promise((resolve, reject) => {
    child.once('message', resolve);
    child.once('exit', (code) =>
      reject(new Error(`${basename(path)} ${args[0] ?? ''} exited with ${code}`)),
    );
  });
  return {
    first,
    ask(message) {
      const id = ++asked;
      return new Promise((resolve) => {
        pending.set(id, resolve);
        child.send({ ...message, id });
      });
    },
    async stop() {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      // a child that exits is stopped, whether or not its answer came through first
      await Promise.race([this.ask({ type: 'stop' }), exited]);
      await exited;
    },
  };
}
