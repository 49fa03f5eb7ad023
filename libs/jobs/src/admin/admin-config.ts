import { join } from 'node:path';
import { AdminGuardRequiredError } from '../errors/admin-errors';
import { InvariantError } from '../errors/runtime-errors';
import type {
  AdminRequest,
  JobsAdminOptions,
  JobsAdminRoute,
  ResolvedAdminOptions,
} from './admin.options';

/** The default mount point of the admin page. */
export const DEFAULT_ADMIN_PATH = '/_x/jobs';
/** The default polling interval of the page. */
export const DEFAULT_ADMIN_POLL_MS = 2000;

const PATH = /^(\/[A-Za-z0-9._~-]+)+$/;
const ROUTE_NAME = /^[A-Za-z0-9_-]+$/;

function headerOf(request: AdminRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}

/** The default session binding of a write token: the `authorization` header, else the `cookie` header. */
export function defaultCsrfBinding(request: AdminRequest): string {
  return headerOf(request, 'authorization') ?? headerOf(request, 'cookie') ?? '';
}

function routesOf(routes: readonly JobsAdminRoute[]): ReadonlyMap<string, JobsAdminRoute> {
  const map = new Map<string, JobsAdminRoute>();
  for (const route of routes) {
    if (!ROUTE_NAME.test(route.name) || map.has(route.name)) {
      throw new InvariantError(
        `JobsAdminModule: route name "${route.name}" is ${map.has(route.name) ? 'taken twice' : 'not a path segment'}.`,
        'Name each extension route once, with letters, digits, "-" and "_" only.',
      );
    }
    map.set(route.name, route);
  }
  return map;
}

/**
 * The options checked and defaulted, at `forRoot()` time: no guard and not `public` is `X_ADMIN_GUARD_REQUIRED`; a
 * path that is not `/segment[/segment…]` or a non-positive `pollMs` is `X_INVARIANT`.
 */
export function resolveAdminOptions(options: JobsAdminOptions): ResolvedAdminOptions {
  const path = options.path ?? DEFAULT_ADMIN_PATH;
  if (!PATH.test(path)) {
    throw new InvariantError(
      `JobsAdminModule: path "${path}" is not an absolute path without a trailing slash.`,
      "Pass a path like '/_x/jobs'.",
    );
  }
  if (options.guard === undefined && options.public !== true)
    throw new AdminGuardRequiredError(path);
  const pollMs = options.pollMs ?? DEFAULT_ADMIN_POLL_MS;
  if (!Number.isInteger(pollMs) || pollMs < 100) {
    throw new InvariantError(
      `JobsAdminModule: pollMs must be an integer of at least 100 (got ${String(pollMs)}).`,
      'Pass pollMs: 2000 or leave it out.',
    );
  }
  return {
    path,
    guard: options.guard ?? null,
    canWrite: options.canWrite ?? (() => false),
    csrfBinding: options.csrfBinding ?? defaultCsrfBinding,
    allowedOrigins: options.allowedOrigins ?? [],
    assetsDir: options.assetsDir ?? join(__dirname, 'assets'),
    pollMs,
    routes: routesOf(options.routes ?? []),
  };
}
