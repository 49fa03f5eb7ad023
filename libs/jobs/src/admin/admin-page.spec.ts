import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type BrowserContext, type Page } from 'playwright-core';
import { untilValue } from '../../../../test/until';
import { flaky, flakyState, later, other, quick, READER, WRITER } from '../../test/admin/admin-app';
import { adminSpec } from '../../test/admin/admin-spec';
import { JobsService } from '../nest/jobs.service';

jest.setTimeout(90_000);

describe('the admin page in headless Chromium, on a real PostgreSQL', () => {
  const ui = adminSpec('jobs-admin-');
  const { db } = ui;
  let reader: BrowserContext;
  let deadId: string;

  const state = async (id: string) =>
    (await db.pool.query<{ state: string }>('select state from x_jobs where id = $1', [id])).rows[0]
      ?.state;

  beforeAll(async () => {
    reader = await ui.browser.newContext({ extraHTTPHeaders: READER });
    // one dead run with two completed steps, and three rows parked an hour ahead
    ({ id: deadId } = await flaky.enqueue({ order: 'o-1', card: '4242 4242 4242 4242' }));
    for (const n of [1, 2, 3]) await later.enqueue({ n }, { delay: '1h' });
    await untilValue('the flaky run dead', async () =>
      (await state(deadId)) === 'dead' ? true : undefined,
    );
  });

  const open = async (context: BrowserContext, hash: string): Promise<Page> => {
    const page = await context.newPage();
    await page.goto(`${ui.admin.page}#/${hash}`);
    return page;
  };

  it('the queues page shows the counts the rows hold', async () => {
    const page = await open(ui.writer, 'queues');
    await page
      .locator('[data-testid="queue-later"] [data-testid="count-delayed"]')
      .getByText('3')
      .waitFor();
    const { rows } = await db.pool.query<{ queue: string; state: string; n: number }>(
      'select queue, state, count(*)::int as n from x_jobs group by queue, state',
    );
    expect(rows.length).toBeGreaterThanOrEqual(2);
    for (const row of rows) {
      const cell = page.locator(
        `[data-testid="queue-${row.queue}"] [data-testid="count-${row.state}"]`,
      );
      expect((await cell.textContent())?.trim()).toBe(String(row.n));
    }
    await page.close();
  });

  it("a dead job's page shows its steps, its error and its redacted input", async () => {
    const page = await open(ui.writer, `job/${deadId}`);
    await page.getByTestId('job-state').getByText('dead').waitFor();
    expect(await page.locator('[data-testid="steps"] tbody tr').count()).toBe(2);
    await page.getByTestId('step-fetch').waitFor();
    await page.getByTestId('step-transform').waitFor();
    expect(await page.getByTestId('replays-fetch').textContent()).toBe('0');
    expect(await page.getByTestId('failure').textContent()).toContain(
      'the payment provider answered 502',
    );
    const input = await page.getByTestId('input').textContent();
    expect(input).toContain('[redacted]');
    expect(input).not.toContain('4242');
    await page.close();
  });

  it("a job's progress shows as a bar with its share done, beside the note", async () => {
    const { id } = await later.enqueue({ n: 99 }, { delay: '1h' });
    const progress = { done: 1, total: 4, note: 'a quarter' };
    await db.pool.query('update x_jobs set progress = $2 where id = $1', [id, progress]);
    const page = await open(ui.writer, `job/${id}`);
    await page.getByTestId('progress').getByText('a quarter').waitFor();
    expect(await page.locator('[data-testid="progress"] progress').getAttribute('value')).toBe(
      '25',
    );
    expect(await page.getByTestId('progress').textContent()).toContain('25%');
    await page.close();
  });

  it('clicking retry runs the job to done, and the page follows without a reload', async () => {
    const page = await open(ui.writer, `job/${deadId}`);
    await page.getByTestId('job-state').getByText('dead').waitFor();
    await page.evaluate(() => Object.assign(globalThis, { sameDocument: true }));
    flakyState.healed = true;
    await page.getByTestId('retry').click();
    await page.getByTestId('job-state').getByText('done').waitFor();
    expect(await state(deadId)).toBe('done');
    expect(await page.evaluate(() => (globalThis as { sameDocument?: boolean }).sameDocument)).toBe(
      true,
    );
    await page.close();
  });

  it('a read-only user sees no write buttons, and a forged POST is refused', async () => {
    const page = await open(reader, 'queues');
    await page.getByTestId('mode').getByText('read only').waitFor();
    await page.locator('[data-testid="queue-later"]').waitFor();
    expect(
      await page
        .locator('main button:not([type=submit]):not([data-testid=newer]):not([data-testid=older])')
        .count(),
    ).toBe(0);
    await page.goto(`${ui.admin.page}#/job/${deadId}`);
    await page.getByTestId('job-state').waitFor();
    expect(await page.locator('.actions button').count()).toBe(0);
    // the reader's own browser, writing anyway: no token, refused
    const status = await page.evaluate(async (base) => {
      const r = await fetch(`${base}/api/queues/later/pause`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      });
      return [r.status, ((await r.json()) as { code: string }).code];
    }, ui.admin.page);
    expect(status).toEqual([403, 'X_ADMIN_WRITE_REFUSED']);
    await page.close();

    // a page on another site, in the WRITER's browser (credentials attached), posting a form at the API
    const attacker = await attackerSite(`${ui.admin.page}/api/queues/later/pause`);
    try {
      const forged = await ui.writer.newPage();
      const response = await Promise.all([
        forged.waitForResponse((r) => r.url().endsWith('/api/queues/later/pause')),
        forged.goto(attacker.url),
      ]).then(([r]) => r);
      expect(response.status()).toBe(403);
      expect(await response.text()).toContain('X_ADMIN_WRITE_REFUSED');
      await forged.close();
    } finally {
      attacker.server.close();
    }
    expect(
      (await ui.admin.app.get(JobsService).inspectQueues()).find((q) => q.queue === 'later')
        ?.paused,
    ).toBe(false);
  });

  it('a session the page could not read is said, and read again until the page loads', async () => {
    const page = await ui.writer.newPage();
    let reads = 0;
    let seen!: () => void;
    const errorSeen = new Promise<void>((resolve) => (seen = resolve));
    // the first read of the session meets the server out of reach (a restart, a network blip); the next waits until
    // the test has read what the page said, so a slow machine cannot retry past it
    await page.route('**/api/session', async (route) => {
      if (reads++ === 0) return route.abort('connectionrefused');
      await errorSeen;
      await route.continue();
    });
    await page.goto(`${ui.admin.page}#/queues`);
    expect(await page.getByTestId('session-error').textContent()).toContain('(trying again)');
    seen();
    await page.locator('[data-testid="queue-later"]').waitFor();
    expect(await page.getByTestId('mode').textContent()).toBe('read and write');
    expect(reads).toBe(2);
    await page.close();
  });

  it('a pause the server refuses is said on the page, and the queue stays as it was', async () => {
    // a writer's page, open while the user's write access is taken away
    const revoked = await ui.browser.newContext({ extraHTTPHeaders: WRITER });
    const page = await open(revoked, 'queues');
    const button = page.locator('[data-testid="queue-later"] [data-testid="pause-queue"]');
    await button.waitFor();
    await revoked.setExtraHTTPHeaders(READER);
    await button.click();
    await page.getByTestId('note').getByText('X_ADMIN_WRITE_REFUSED:').waitFor();
    expect(await page.getByTestId('note').getAttribute('class')).toBe('note error');
    expect(await button.textContent()).toContain('Pause');
    expect(
      (await ui.admin.app.get(JobsService).inspectQueues()).find((q) => q.queue === 'later')
        ?.paused,
    ).toBe(false);
    await revoked.close();
  });

  it('pausing a queue from the page says so, and stops every claim from it until it is resumed', async () => {
    const page = await open(ui.writer, 'queues');
    const writes: string[] = [];
    page.on('request', (r) => {
      if (r.method() === 'POST') writes.push(new URL(r.url()).pathname);
    });
    await page.locator('[data-testid="queue-work"] [data-testid="pause-queue"]').click();
    await page.locator('[data-testid="queue-work"] [data-testid="paused"]').waitFor();
    expect(await page.getByTestId('note').textContent()).toBe('paused queue work');
    expect(await page.getByTestId('note').getAttribute('class')).toBe('note');
    const held = await quick.enqueue({ n: 1 });
    const served = await other.enqueue({ n: 2 });
    // the worker claims from its other queue after the held row landed: its claim cycles went on, and passed it by
    await untilValue('the other queue served', async () =>
      (await state(served.id)) === 'done' ? true : undefined,
    );
    const row = await db.pool.query<{ state: string; attempt: number }>(
      'select state, attempt from x_jobs where id = $1',
      [held.id],
    );
    expect(row.rows[0]).toEqual({ state: 'ready', attempt: 0 });
    await page.locator('[data-testid="queue-work"] [data-testid="resume-queue"]').click();
    // the page reads the resume back: the queue's row offers Pause again
    await page.locator('[data-testid="queue-work"] [data-testid="pause-queue"]').waitFor();
    await untilValue('the held row run', async () =>
      (await state(held.id)) === 'done' ? true : undefined,
    );
    await page.close();
  });
});

/** A one-page site on another origin (127.0.0.1 vs localhost) auto-submitting a form POST at `target`. */
async function attackerSite(target: string): Promise<{ url: string; server: Server }> {
  const server = createServer((_req, res) => {
    res.setHeader('content-type', 'text/html');
    res.end(
      `<form method="post" action="${target}"><input name="x" value="1"></form><script>document.forms[0].submit()</script>`,
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, server };
}
