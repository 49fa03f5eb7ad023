/** The page's one way to the server: the admin JSON API under `<base>/api`, nothing else. */

/** What `GET api/session` answers. */
export interface Session {
  readonly canWrite: boolean;
  readonly csrfToken: string | null;
  readonly pollMs: number;
  readonly backfills: boolean;
  readonly routes: readonly string[];
}

/** A refused call: the API's status, code and message. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

const root = document.getElementById('app');
/** Where the page is mounted (the module's `path`). */
export const BASE = root?.dataset.base ?? '';

let session: Session | null = null;

async function parse<T>(response: Response): Promise<T> {
  const body = (await response.json().catch(() => ({}))) as Record<string, unknown>;
  if (!response.ok) {
    throw new ApiError(
      response.status,
      typeof body.code === 'string' ? body.code : `HTTP_${response.status}`,
      typeof body.message === 'string' ? body.message : response.statusText,
    );
  }
  return body as T;
}

/** A read of `api/<path>` with the query's defined entries. */
export async function get<T>(
  path: string,
  query: Record<string, string | number | undefined> = {},
): Promise<T> {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query))
    if (v !== undefined && v !== '') params.set(k, String(v));
  const qs = params.toString();
  const response = await fetch(`${BASE}/api/${path}${qs ? `?${qs}` : ''}`, {
    credentials: 'same-origin',
    headers: { accept: 'application/json' },
  });
  return parse<T>(response);
}

/** The session: whether this user may write, and the token writes carry. Read once, again after a refused token. */
export async function loadSession(fresh = false): Promise<Session> {
  if (session === null || fresh) session = await get<Session>('session');
  return session;
}

async function send<T>(path: string, body: unknown, token: string | null): Promise<Response> {
  return fetch(`${BASE}/api/${path}`, {
    method: 'POST',
    credentials: 'same-origin',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json',
      'x-jobs-csrf': token ?? '',
    },
    body: JSON.stringify(body ?? {}),
  }) as Promise<Response & { json(): Promise<T> }>;
}

/** A write to `api/<path>`; a token the server no longer knows (a restart) is fetched again once. */
export async function post<T>(path: string, body: unknown = {}): Promise<T> {
  let response = await send<T>(path, body, (await loadSession()).csrfToken);
  if (response.status === 403) {
    const retry = await send<T>(path, body, (await loadSession(true)).csrfToken);
    response = retry;
  }
  return parse<T>(response);
}
