import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { JobPageView, JobSummaryView, JobView, QueueView, TaskView } from '@ultimat3/jobs';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { until } from '../../../../test/until';
import { callJson, callRefused, toolNames } from '../../test/mcp/mcp-client';
import { behaviour, xCliNightly, xCliSteps } from '../../test/x-cli/app';
import { APP, ROOT } from '../../test/x-cli/run-x';
import { openWorld, scratchTarget, type XWorld } from '../../test/x-cli/target';
import { scratchPostgres } from '../../test/scratch-backends';
import { MCP_READ_TOOLS, MCP_WRITE_TOOLS } from './mcp-tools';

const REGISTER = join(ROOT, 'libs', 'jobs-pg', 'test', 'swc-register.js');
const X = join(ROOT, 'libs', 'jobs', 'src', 'cli', 'x.ts');
const card = { number: '4242424242424242', last4: '4242' };

/** The real `x mcp` binary spawned from its sources, with an MCP SDK client on its stdin/stdout. */
async function connectX(flags: readonly string[]): Promise<Client> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v !== undefined && k !== 'DATABASE_URL' && k !== 'REDIS_URL') env[k] = v;
  }
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ['-r', REGISTER, X, 'mcp', ...flags],
    cwd: ROOT,
    env,
    stderr: 'ignore',
  });
  const client = new Client({ name: 'mcp-stdio-spec', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

describe('x mcp over stdio against PostgreSQL', () => {
  let w: XWorld;
  let flags: string[];
  const clients: Client[] = [];

  beforeAll(async () => {
    const target = scratchTarget(await scratchPostgres('x_mcp'));
    flags = [...target.flags, '--app', APP];
    w = await openWorld({ ...target, flags });
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await w?.close();
  });

  async function connect(allowWrites: boolean): Promise<Client> {
    const client = await connectX(allowWrites ? [...flags, '--allow-writes'] : flags);
    clients.push(client);
    return client;
  }

  it('lists every tool, inspects a dead job and retries it from a step to done', async () => {
    behaviour.failC = true;
    behaviour.calls.length = 0;
    const { id } = await xCliSteps.enqueue({ order: 'mcp-stdio', card });
    await w.untilState(id, 'dead');

    const client = await connect(true);
    expect(await toolNames(client)).toEqual([...MCP_READ_TOOLS, ...MCP_WRITE_TOOLS].sort());

    const dead = await callJson<JobView>(client, 'inspect_job', { id });
    expect(dead).toMatchObject({
      id,
      state: 'dead',
      input: { order: 'mcp-stdio', card: { number: '[redacted]', last4: '4242' } },
      redacted: ['card.number'],
    });
    // the number the failure carried is scrubbed, as the input's is (the server holds the app's declarations)
    expect(dead.failure?.message).toBe('card [redacted] declined by the issuer');
    expect(dead.steps.map((s) => s.name)).toEqual(['a', 'b']);
    const letters = await callJson<JobPageView>(client, 'list_dead_letters', { queue: 'x-cli' });
    expect(letters.jobs.map((j) => j.id)).toContain(id);
    expect(JSON.stringify(letters)).not.toContain(card.number);

    behaviour.failC = false;
    const requeued = await callJson<JobSummaryView>(client, 'retry_job', { id, fromStep: 'b' });
    expect(requeued).toMatchObject({ id, state: 'ready', attempt: 0 });
    await w.untilState(id, 'done');
    expect(behaviour.calls).toEqual(['a', 'b', 'c', 'b', 'c']);
    expect((await callJson<JobView>(client, 'inspect_job', { id })).state).toBe('done');
  });

  it('pages list_jobs through its cursor and pauses and resumes a queue', async () => {
    const ids = await w.seedReady('mcp-stdio-page', 3);
    const client = await connect(true);
    const seen: string[] = [];
    let page = await callJson<JobPageView>(client, 'list_jobs', {
      queue: 'mcp-stdio-page',
      state: 'ready',
      limit: 2,
    });
    seen.push(...page.jobs.map((j) => j.id));
    expect(page.next).not.toBeNull();
    page = await callJson<JobPageView>(client, 'list_jobs', {
      queue: 'mcp-stdio-page',
      limit: 2,
      after: page.next,
    });
    seen.push(...page.jobs.map((j) => j.id));
    expect(page.next).toBeNull();
    expect(seen).toEqual([...ids].sort().reverse());

    expect(await callJson(client, 'pause_queue', { queue: 'mcp-stdio-page' })).toEqual({
      queue: 'mcp-stdio-page',
      paused: true,
    });
    const queues = await callJson<QueueView[]>(client, 'list_queues');
    expect(queues.find((q) => q.queue === 'mcp-stdio-page')).toMatchObject({
      ready: 3,
      paused: true,
    });
    await callJson(client, 'resume_queue', { queue: 'mcp-stdio-page' });
    expect(await w.driver.introspect?.pausedQueues()).not.toContain('mcp-stdio-page');
  });

  it("pauses and resumes the app's task", async () => {
    const client = await connect(true);
    const nightly = xCliNightly.name;
    expect(await callJson(client, 'pause_task', { task: nightly })).toEqual({
      task: nightly,
      paused: true,
    });
    expect(await w.driver.introspect?.pausedTasks()).toContain(nightly);
    const tasks = await callJson<TaskView[]>(client, 'list_tasks');
    expect(tasks.find((t) => t.name === nightly)).toMatchObject({
      declared: true,
      cron: '0 3 * * *',
      paused: true,
    });
    await callJson(client, 'resume_task', { task: nightly });
    expect(await w.driver.introspect?.pausedTasks()).not.toContain(nightly);
  });

  it('without --allow-writes lists no write tool and refuses a call to one, changing nothing', async () => {
    const [id] = await w.seedDead('mcp-stdio-ro', 1);
    const client = await connect(false);
    expect(await toolNames(client)).toEqual([...MCP_READ_TOOLS].sort());
    for (const name of MCP_WRITE_TOOLS) {
      expect(
        await callRefused(client, name, { id, queue: 'mcp-stdio-ro', task: xCliNightly.name }),
      ).toContain(`Tool ${name} not found`);
    }
    expect((await w.driver.get(id!))?.state).toBe('dead');
    expect(await w.driver.introspect?.pausedQueues()).not.toContain('mcp-stdio-ro');
    expect(await w.driver.introspect?.pausedTasks()).toEqual([]);
  });

  it('ends with exit 0 once the client closes stdin, its note on stderr and nothing but protocol on stdout', async () => {
    const child = spawn(process.execPath, ['-r', REGISTER, X, 'mcp', ...flags], {
      cwd: ROOT,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = once(child, 'exit') as Promise<[number | null, string | null]>;
    await until(() => stderr.includes('x mcp: serving'));
    child.stdin.end();
    const [code, signal] = await exited;
    expect({ code, signal }).toEqual({ code: 0, signal: null });
    expect(stdout).toBe('');
    expect(stderr).toContain('(read-only)');
  });
});
