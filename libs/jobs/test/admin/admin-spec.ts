import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext } from 'playwright-core';
import { pgJobsSpec, type SpecDatabase } from '../../../jobs-pg/test/pg-jobs-spec';
import { startAdminApp, WRITER, type AdminApp } from './admin-app';
import { buildAdminAssets, chromiumPath } from './chromium';

/** What an admin spec drives: its database, the admin app over it, headless Chromium and a writer's context. */
export interface AdminSpec {
  /** The spec's database (`pgJobsSpec`, 4 connections). */
  readonly db: SpecDatabase;
  /** The admin app (from `beforeAll` on). */
  readonly admin: AdminApp;
  /** Headless Chromium (from `beforeAll` on). */
  readonly browser: Browser;
  /** A context of `browser` sending the writer's headers (from `beforeAll` on). */
  readonly writer: BrowserContext;
}

/**
 * The set-up the admin Chromium specs share, registered once: the database, the admin assets built into a temporary
 * folder named `assetsPrefix…`, the admin app over the database, Chromium and a writer's context in `beforeAll`; the
 * browser, the app and the assets closed and removed before the database is dropped. Call it at the top of the
 * `describe`, before the hooks that seed rows.
 */
export function adminSpec(assetsPrefix: string): AdminSpec {
  let assets: string | undefined;
  let admin: AdminApp | undefined;
  let browser: Browser | undefined;
  let writer: BrowserContext | undefined;
  const db = pgJobsSpec({
    poolSize: 4,
    beforeDrop: async () => {
      await browser?.close();
      await admin?.close();
      if (assets) await rm(assets, { recursive: true, force: true });
    },
  });
  beforeAll(async () => {
    assets = buildAdminAssets(await mkdtemp(join(tmpdir(), assetsPrefix)));
    admin = await startAdminApp(db.url, { assetsDir: assets });
    browser = await chromium.launch({ executablePath: chromiumPath(), args: ['--no-sandbox'] });
    writer = await browser.newContext({ extraHTTPHeaders: WRITER });
  });
  const ready = <T>(value: T | undefined, what: string): T => {
    if (value === undefined) throw new Error(`adminSpec: ${what} is set in beforeAll`);
    return value;
  };
  return {
    db,
    get admin() {
      return ready(admin, 'admin');
    },
    get browser() {
      return ready(browser, 'browser');
    },
    get writer() {
      return ready(writer, 'writer');
    },
  };
}
