import { JobsError } from './jobs-error';

/**
 * `JobsAdminModule.forRoot()` was given no `guard`: the admin page and its API would be open to anyone who can reach
 * the app. Thrown at boot, before any route is mounted.
 */
export class AdminGuardRequiredError extends JobsError {
  constructor(path: string) {
    super(
      'X_ADMIN_GUARD_REQUIRED',
      `JobsAdminModule.forRoot({ path: '${path}' }) has no guard: the admin API would answer anyone.`,
      {
        fix: "Pass guard: the app's CanActivate class or instance (your auth guard), or public: true for an app only operators can reach.",
        meta: { path },
      },
    );
  }
}

/** Why the admin API refused a write. */
export type AdminWriteRefusal = 'read-only' | 'csrf-token' | 'origin';

const REFUSAL_FIX: Readonly<Record<AdminWriteRefusal, string>> = {
  'read-only': "This user may only read: the app's canWrite(request) answered false.",
  'csrf-token':
    'Send the token GET <path>/api/session answers in the x-jobs-csrf header, from the same session.',
  origin:
    'Write from the admin page itself: a cross-site request is refused (or list the origin in allowedOrigins).',
};

/** The admin API refused a write (HTTP 403): the caller may not write, or the request is not the page's own. */
export class AdminWriteRefusedError extends JobsError {
  constructor(readonly reason: AdminWriteRefusal) {
    super('X_ADMIN_WRITE_REFUSED', `The admin API refused the write (${reason}).`, {
      fix: REFUSAL_FIX[reason],
      meta: { reason },
    });
  }
}
