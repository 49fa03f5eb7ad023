/**
 * CPU time, not wall time, of a piece of work: in this process (`process.cpuUsage()`) and in the PostgreSQL server's
 * processes (every child of its postmaster, read from `/proc`, so the backends serving the work, its WAL writer and
 * the rest). On a busy machine the CPU a batch costs holds still where its wall time wanders. The server's share is
 * readable only when it runs on this machine under Linux (the embedded one); otherwise it is left out.
 */
import { readdirSync, readFileSync } from 'node:fs';

/** The clock ticks a second `/proc/<pid>/stat` counts in (USER_HZ: 100 on Linux). */
const TICK_MS = 10;

/**
 * The CPU ms `pid` used so far (utime + stime), the kernel's share of it (stime) and its parent pid, or undefined when
 * it is gone.
 */
export function statOf(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return {
      ppid: Number(fields[1]),
      ms: (Number(fields[11]) + Number(fields[12])) * TICK_MS,
      kernelMs: Number(fields[12]) * TICK_MS,
    };
  } catch {
    return undefined;
  }
}

/** The postmaster of the server `pool` reaches, when it runs here; undefined otherwise. */
export async function serverOf(pool) {
  const { rows } = await pool.query('select pg_backend_pid() as pid');
  const ppid = statOf(rows[0].pid)?.ppid;
  return ppid === undefined ? undefined : { postmaster: ppid };
}

/** CPU ms used so far by every child of `server`'s postmaster (the children alive now). */
export function serverMs(server) {
  let ms = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = statOf(entry);
    if (stat?.ppid === server.postmaster) ms += stat.ms;
  }
  return ms;
}

/** Runs `work`, answering its CPU ms in this process and in the server (undefined when not readable). */
export async function cpuOf(server, work) {
  const serverBefore = server === undefined ? undefined : serverMs(server);
  const before = process.cpuUsage();
  await work();
  const used = process.cpuUsage(before);
  return {
    processMs: (used.user + used.system) / 1_000,
    serverMs: serverBefore === undefined ? undefined : serverMs(server) - serverBefore,
  };
}
