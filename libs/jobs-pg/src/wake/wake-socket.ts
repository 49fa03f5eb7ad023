import type { Clock, TimerHandle } from '@ultimat3/jobs';
import { WAKE_END_MS } from './queue-wake-config';
import type { WakeSession } from './wake-session';

/** The part of a `pg.Client` its socket is reached through (not part of {@link WakeSession}'s structural surface). */
interface SocketHolder {
  readonly connection?: { readonly stream?: { destroy?: () => void } };
}

/**
 * Ends `session` gracefully, or — when its close has not come within {@link WAKE_END_MS} of `clock` (a server behind a
 * partition never answers the goodbye) — destroys its socket. Never rejects.
 */
export async function endWithin(session: WakeSession, clock: Clock): Promise<void> {
  let timer: TimerHandle | undefined;
  const ended = await Promise.race([
    Promise.resolve()
      .then(() => session.end())
      .then(
        () => true,
        () => true,
      ),
    new Promise<boolean>((resolve) => {
      timer = clock.setTimeout(() => resolve(false), WAKE_END_MS);
    }),
  ]);
  timer?.cancel();
  if (!ended) destroySocket(session);
}

/** Destroys `session`'s socket at once (a `pg.Client`'s; a session of another shape is left as it is). */
export function destroySocket(session: WakeSession): void {
  (session as unknown as SocketHolder).connection?.stream?.destroy?.();
}
