import { type Page } from 'playwright-core';
import { untilValue } from '../../../../test/until';
import { flaky, flakyState, later, nightly, slugs } from '../../test/admin/admin-app';
import { adminSpec } from '../../test/admin/admin-spec';

jest.setTimeout(90_000);

describe('the admin views in headless Chromium: dead letters, retry from a step, paging, tasks, workers', () => {
  const ui = adminSpec('jobs-admin-views-');
  const { db } = ui;

  const state = async (id: string) =>
    (await db.pool.query<{ state: string }>('select state from x_jobs where id = $1', [id])).rows[0]
      ?.state;
  const untilState = (id: string, wanted: string) =>
    untilValue(`${id} ${wanted}`, async () => ((await state(id)) === wanted ? true : undefined));

  const open = async (hash: string): Promise<Page> => {
    const page = await ui.writer.newPage();
    await page.goto(`${ui.admin.page}#/${hash}`);
    return page;
  };

  it('the dead-letter queue: retry one row, then bulk-retry every match after the preview', async () => {
    flakyState.healed = false;
    const ids: string[] = [];
    for (const order of ['d-1', 'd-2', 'd-3'])
      ids.push((await flaky.enqueue({ order, card: 'x' })).id);
    for (const id of ids) await untilState(id, 'dead');
    const [first, ...rest] = ids as [string, ...string[]];

    const page = await open('dead?queue=work');
    for (const id of ids) await page.getByTestId(`job-${id}`).waitFor();
    flakyState.healed = true;
    await page.getByTestId(`job-${first}`).getByTestId('retry').click();
    await untilState(first, 'done');
    await page.getByTestId(`job-${first}`).waitFor({ state: 'detached' });

    let asked = '';
    page.once('dialog', (dialog) => {
      asked = dialog.message();
      void dialog.accept();
    });
    await page.getByTestId('bulk-retry').click();
    for (const id of rest) await untilState(id, 'done');
    expect(asked).toBe('Retry 2 dead job(s) matching this filter?');
    await page.locator('[data-testid="jobs"] tbody tr').first().waitFor({ state: 'detached' });
    await page.close();
  });

  it('retry from a step re-queues a dead job from the step chosen on its page, and it runs to done', async () => {
    flakyState.healed = false;
    const { id } = await flaky.enqueue({ order: 'f-1', card: 'x' });
    await untilState(id, 'dead');
    const page = await open(`job/${id}`);
    await page.getByTestId('step-transform').waitFor();
    flakyState.healed = true;
    await page.getByTestId('from-step').selectOption('transform');
    const sent = page.waitForRequest(
      (r) => r.method() === 'POST' && r.url().endsWith(`/jobs/${id}/retry`),
    );
    await page.getByTestId('retry-from-step').click();
    expect((await sent).postDataJSON()).toEqual({ fromStep: 'transform' });
    await page.getByTestId('job-state').getByText('done').waitFor();
    expect(await state(id)).toBe('done');
    await page.close();
  });

  it('job lists page through a filter with the cursors, older and back newer', async () => {
    const ids: string[] = [];
    for (let n = 1; n <= 5; n++) ids.push((await later.enqueue({ n }, { delay: '1h' })).id);
    const { rows } = await db.pool.query<{ id: string }>(
      "select id from x_jobs where queue = 'later' order by id desc",
    );
    const newestFirst = rows.map((r) => r.id);
    expect([...newestFirst].sort()).toEqual([...ids].sort());

    const page = await open('jobs?queue=later&limit=2');
    const shown = async () => {
      await page.locator('[data-testid="jobs"] tbody tr').first().waitFor();
      return page
        .locator('[data-testid="jobs"] tbody tr')
        .evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-testid')?.slice(4)));
    };
    const pageOf = async (want: string[]) =>
      untilValue(`rows ${want.join(',')}`, async () => {
        const got = await shown();
        return JSON.stringify(got) === JSON.stringify(want) ? got : undefined;
      });
    await pageOf(newestFirst.slice(0, 2));
    await page.getByTestId('older').click();
    await pageOf(newestFirst.slice(2, 4));
    await page.getByTestId('older').click();
    await pageOf(newestFirst.slice(4));
    expect(await page.getByTestId('older').isDisabled()).toBe(true);
    await page.getByTestId('newer').click();
    await pageOf(newestFirst.slice(2, 4));
    await page.close();
  });

  it('tasks pause and resume from the page; a declared sweep shows not swept; the worker shows on the workers page', async () => {
    const page = await open('tasks');
    const row = page.getByTestId(`task-${nightly.name}`);
    await row.getByTestId('pause-task').click();
    await row.getByTestId('task-state').getByText('paused').waitFor();
    const paused = await db.pool.query('select task from x_task_pauses');
    expect(paused.rows).toEqual([{ task: nightly.name }]);
    await row.getByTestId('resume-task').click();
    await row.getByTestId('task-state').getByText('active').waitFor();
    expect(await page.getByTestId('note').textContent()).toBe(`resumed task ${nightly.name}`);
    expect((await db.pool.query('select task from x_task_pauses')).rowCount).toBe(0);

    await page.goto(`${ui.admin.page}#/backfills`);
    const sweep = page.getByTestId(`declared-${slugs.name}`);
    await sweep.getByTestId('declared-state').getByText('pending').waitFor();

    await page.goto(`${ui.admin.page}#/workers`);
    await page.locator('[data-testid="workers"] tbody tr').first().waitFor();
    const slots = await page.locator('[data-testid="workers"] tbody tr td').nth(4).textContent();
    expect(slots).toContain('work');
    await page.close();
  });
});
