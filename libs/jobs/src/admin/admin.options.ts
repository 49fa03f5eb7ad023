import type { IncomingMessage, ServerResponse } from 'node:http';
import type { CanActivate, Type } from '@nestjs/common';
import type { JobsService } from '../nest/jobs.service';

/** The request the admin module hands to `canWrite` and to extension routes: the platform's (Express: `Request`). */
export type AdminRequest = IncomingMessage & { readonly body?: unknown };

/** What an extension route gets: the raw request and response, the projection, and whether the caller may write. */
export interface JobsAdminRouteContext {
  /** The raw request (its parsed `body`, when the platform parsed one). */
  readonly request: AdminRequest;
  /** The platform's response (Express: `Response`); the route writes and ends it. */
  readonly response: ServerResponse;
  /** The operator projection. */
  readonly jobs: JobsService;
  /** `canWrite(request)`'s answer for this request. */
  readonly canWrite: boolean;
}

/**
 * A route mounted beside the admin page, at `<path>/ext/<name>` for every method, behind the same guard and the same
 * Origin check (a cross-site browser request is refused before the route runs). The MCP streamable HTTP endpoint
 * mounts this way: `routes: [mcpAdminRoute(...)]`. The route answers the response itself.
 */
export interface JobsAdminRoute {
  /** The last path segment: letters, digits, `-` and `_`. */
  readonly name: string;
  /** Answers one request; the route writes and ends the response itself. */
  handle(context: JobsAdminRouteContext): Promise<void> | void;
}

/** Options of `JobsAdminModule.forRoot()`. */
export interface JobsAdminOptions {
  /** Where the page and its API are mounted (default `/_x/jobs`); the API is under `<path>/api`. */
  readonly path?: string;
  /**
   * The app's guard (a Nest `CanActivate` class or instance) run before every admin route: the page, its assets, the
   * API and extension routes. Required unless `public` is true (`X_ADMIN_GUARD_REQUIRED` at boot).
   */
  readonly guard?: Type<CanActivate> | CanActivate;
  /** Mount without a guard: only for an app operators alone can reach (a private port, a sidecar). */
  readonly public?: boolean;
  /** Whether this request may retry, cancel and pause (default: nobody may). The page hides its buttons otherwise. */
  readonly canWrite?: (request: AdminRequest) => boolean | Promise<boolean>;
  /**
   * What ties a write token to the caller's session (default: the `authorization` header, else the `cookie` header):
   * a token issued to one session is refused for another.
   */
  readonly csrfBinding?: (request: AdminRequest) => string;
  /** Origins allowed beside the request's own host (e.g. `https://ops.example.com` behind a proxy that rewrites Host). */
  readonly allowedOrigins?: readonly string[];
  /** The directory of the page's built assets (default: `dist/admin/assets` inside the package). */
  readonly assetsDir?: string;
  /** How often the page polls the API, in ms (default 2000). */
  readonly pollMs?: number;
  /** Routes mounted at `<path>/ext/<name>` behind the same guard (the MCP endpoint). */
  readonly routes?: readonly JobsAdminRoute[];
}

/** {@link JobsAdminOptions} with every default applied. */
export interface ResolvedAdminOptions {
  readonly path: string;
  readonly guard: Type<CanActivate> | CanActivate | null;
  readonly canWrite: (request: AdminRequest) => boolean | Promise<boolean>;
  readonly csrfBinding: (request: AdminRequest) => string;
  readonly allowedOrigins: readonly string[];
  readonly assetsDir: string;
  readonly pollMs: number;
  readonly routes: ReadonlyMap<string, JobsAdminRoute>;
}

/** The DI token of the resolved options. */
export const JOBS_ADMIN_OPTIONS = Symbol('JOBS_ADMIN_OPTIONS');
