import { type Page, type Request } from 'playwright-core';
import { untilValue } from '../../../../test/until';
import { flaky, flakyState } from '../../test/admin/admin-app';
import { adminSpec } from '../../test/admin/admin-spec';

jest.setTimeout(90_000);

describe('the dead-letter bulk retry never covers more than the filter the page shows (headless Chromium)', () => {
  const ui = adminSpec('jobs-admin-bulk-scope-');
  const { db } = ui;
  const ids: string[] = [];

  const state = async (id: string) =>
    (await db.pool.query<{ state: string }>('select state from x_jobs where id = $1', [id])).rows[0]
      ?.state;

  beforeAll(async () => {
    flakyState.healed = false;
    for (const order of ['s-1', 's-2']) ids.push((await flaky.enqueue({ order, card: 'x' })).id);
    for (const id of ids) {
      await untilValue(`${id} dead`, async () => ((await state(id)) === 'dead' ? true : undefined));
    }
  });

  const open = async (hash: string): Promise<{ page: Page; writes: Request[] }> => {
    const page = await ui.writer.newPage();
    const writes: Request[] = [];
    page.on('request', (r) => {
      if (r.method() === 'POST') writes.push(r);
    });
    await page.goto(`${ui.admin.page}#/${hash}`);
    return { page, writes };
  };

  it.each([
    ['an id prefix', (id: string) => `idPrefix=${id.slice(0, 30)}`, 'clear id prefix'],
    ['a created-from time', () => `createdFrom=${Date.now() - 3_600_000}`, 'clear created from'],
    ['a created-to time', () => `createdTo=${Date.now() + 3_600_000}`, 'clear created to'],
  ])(
    'with %s set, "Retry all matching…" is disabled, says why, and sends nothing',
    async (_label, filter, named) => {
      const [shown] = ids as [string];
      const { page, writes } = await open(`dead?queue=work&${filter(shown)}`);
      await page.getByTestId(`job-${shown}`).waitFor();
      const button = page.getByTestId('bulk-retry');
      expect(await button.isDisabled()).toBe(true);
      expect(await button.getAttribute('title')).toContain(named);
      page.on('dialog', (dialog) => void dialog.accept());
      await button.click({ force: true });
      await page.waitForTimeout(300);
      expect(writes.map((r) => r.url())).toEqual([]);
      for (const id of ids) expect(await state(id)).toBe('dead');
      await page.close();
    },
  );

  it('with only the filters the bulk call applies, the button is enabled', async () => {
    const { page } = await open('dead?queue=work');
    await page.getByTestId(`job-${ids[0] ?? ''}`).waitFor();
    expect(await page.getByTestId('bulk-retry').isDisabled()).toBe(false);
    await page.close();
  });
});
