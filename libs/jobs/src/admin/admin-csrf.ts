import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { AdminRequest, ResolvedAdminOptions } from './admin.options';

/** The header the page sends its write token in. A cross-site form cannot set it; a cross-site fetch must preflight. */
export const ADMIN_CSRF_HEADER = 'x-jobs-csrf';

function header(request: AdminRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * Write tokens bound to a session: `nonce.HMAC(secret, nonce + binding)`, where the secret is drawn per module
 * instance (so a restart invalidates every token: the page fetches a new one) and the binding is the caller's
 * credentials (`csrfBinding`). A token read by one session is refused for another, and a cross-site page cannot read
 * one at all (the API answers no CORS headers).
 */
export class AdminCsrf {
  private readonly secret = randomBytes(32);

  constructor(
    private readonly options: Pick<ResolvedAdminOptions, 'csrfBinding' | 'allowedOrigins'>,
  ) {}

  /** A fresh token for this request's session. */
  issue(request: AdminRequest): string {
    const nonce = randomBytes(16).toString('base64url');
    return `${nonce}.${this.mac(nonce, request)}`;
  }

  /** Whether the request carries a token issued to its own session. */
  verifyToken(request: AdminRequest): boolean {
    const token = header(request, ADMIN_CSRF_HEADER) ?? '';
    const dot = token.indexOf('.');
    if (dot <= 0) return false;
    const expected = Buffer.from(this.mac(token.slice(0, dot), request));
    const given = Buffer.from(token.slice(dot + 1));
    return given.length === expected.length && timingSafeEqual(given, expected);
  }

  /**
   * Whether the request comes from this app's own pages: a browser's `Sec-Fetch-Site` other than `same-origin` (or
   * `none`, typed in the address bar) is refused, and so is an `Origin` whose host is not the request's `Host` nor in
   * `allowedOrigins`. A request with neither header (curl, an MCP client) passes this check.
   */
  sameOrigin(request: AdminRequest): boolean {
    const site = header(request, 'sec-fetch-site');
    if (site !== undefined && site !== 'same-origin' && site !== 'none') return false;
    const origin = header(request, 'origin');
    if (origin === undefined) return true;
    if (this.options.allowedOrigins.includes(origin)) return true;
    try {
      return new URL(origin).host === header(request, 'host');
    } catch {
      return false;
    }
  }

  private mac(nonce: string, request: AdminRequest): string {
    return createHmac('sha256', this.secret)
      .update(`${nonce}\n${this.options.csrfBinding(request)}`)
      .digest('base64url');
  }
}
