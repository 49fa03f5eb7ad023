import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { failureOf } from './actions.mjs';
import { loadSession, type Session } from './api.mjs';

/** A value read now and again every poll interval, plus the last error and a `reload` for after a write. */
export interface Polled<T> {
  readonly data: T | undefined;
  readonly error: string | null;
  readonly reload: () => void;
}

/** Polls `read` every `everyMs` while mounted (and again whenever `key` changes). */
export function usePoll<T>(read: () => Promise<T>, key: string, everyMs: number): Polled<T> {
  const [data, setData] = useState<T | undefined>(undefined);
  const [error, setError] = useState<string | null>(null);
  const readRef = useRef(read);
  readRef.current = read;
  const tick = useRef(0);
  const run = useCallback(() => {
    const mine = ++tick.current;
    readRef.current().then(
      (value) => {
        if (mine !== tick.current) return;
        setData(value);
        setError(null);
      },
      (e: unknown) => {
        if (mine !== tick.current) return;
        setError(failureOf(e));
      },
    );
  }, []);
  useEffect(() => {
    setData(undefined);
    run();
    const timer = setInterval(run, everyMs);
    return () => {
      clearInterval(timer);
      tick.current++;
    };
  }, [key, everyMs, run]);
  return { data, error, reload: run };
}

/** How long the page waits before asking again for a session it could not load. */
const SESSION_RETRY_MS = 2_000;

/**
 * The session once loaded (null before), and why the last try failed: a failed load is said and tried again every
 * `SESSION_RETRY_MS`, rather than leaving the page on "Loading…".
 */
export function useSession(): { readonly session: Session | null; readonly error: string | null } {
  const [session, setSession] = useState<Session | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    let live = true;
    const load = (): Promise<void> =>
      loadSession().then(
        (loaded) => {
          if (live) setSession(loaded);
        },
        (e: unknown) => {
          if (!live) return;
          setError(failureOf(e));
          timer = setTimeout(() => void load(), SESSION_RETRY_MS);
        },
      );
    void load();
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, []);
  return { session, error };
}

/** The hash route: `#/<view>?<query>` split into its parts. */
export interface Route {
  readonly view: string;
  readonly arg: string | undefined;
  readonly query: URLSearchParams;
}

function parseHash(): Route {
  const hash = location.hash.replace(/^#\/?/, '');
  const [path = '', qs = ''] = hash.split('?');
  const [view = 'queues', arg] = path.split('/').map(decodeURIComponent);
  return { view: view === '' ? 'queues' : view, arg, query: new URLSearchParams(qs) };
}

/** The current route, following `hashchange`. */
export function useRoute(): Route {
  const [route, setRoute] = useState(parseHash);
  useEffect(() => {
    const on = () => setRoute(parseHash());
    addEventListener('hashchange', on);
    return () => removeEventListener('hashchange', on);
  }, []);
  return route;
}

/** Navigates to `#/<view>[/arg][?query]`. */
export function go(view: string, arg?: string, query?: Record<string, string | undefined>): void {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query ?? {})) if (v) params.set(k, v);
  const qs = params.toString();
  location.hash = `#/${view}${arg === undefined ? '' : `/${encodeURIComponent(arg)}`}${qs ? `?${qs}` : ''}`;
}
