import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { Body, Controller, Post as HttpPost, type INestApplication } from '@nestjs/common';
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { Test } from '@nestjs/testing';
import type { NextFunction, Request, Response } from 'express';
import request from 'supertest';
import { Column, Entity, PrimaryColumn, type EntityManager } from 'typeorm';
import { currentEntityManager, job, t } from '@ultimat3/jobs';
import { outboxAppImports } from '../../test/outbox-app';
import { pgJobsSpec } from '../../test/pg-jobs-spec';
import {
  parentOf,
  startInMemoryTracing,
  type InMemoryTracing,
} from '../../../../test/in-memory-tracing';
import { until } from '../../../../test/until';

@Entity('invoices')
class Invoice {
  @PrimaryColumn('uuid')
  id!: string;

  @Column('text')
  customer!: string;
}

const sendInvoice = job({
  name: 'outbox-trace.send-invoice',
  input: t.object({ invoiceId: t.uuid }),
  idempotencyKey: ({ invoiceId }) => `send:${invoiceId}`,
  tenant: 'none',
  async run({ input, step }) {
    return step.run('render', () => `invoice ${input.invoiceId}`);
  },
});

@Controller('invoices')
class InvoicesController {
  @HttpPost()
  async create(@Body() body: { customer: string }) {
    const manager = currentEntityManager<EntityManager>();
    if (manager === undefined) throw new Error('no ambient transaction');
    const invoice = await manager
      .getRepository(Invoice)
      .save({ id: randomUUID(), customer: body.customer });
    const queued = await sendInvoice.enqueue({ invoiceId: invoice.id });
    return { jobId: queued.id };
  }
}

describe('one trace: HTTP request -> outbox-staged job -> relay -> worker run -> step (Nest + TypeORM + PostgreSQL)', () => {
  let tracing: InMemoryTracing;
  let app: INestApplication;

  const db = pgJobsSpec({
    beforeDrop: async () => {
      await app?.close();
      await tracing?.stop();
    },
  });
  beforeAll(async () => {
    tracing = startInMemoryTracing();
    const moduleRef = await Test.createTestingModule({
      imports: outboxAppImports(db, { entities: [Invoice], jobs: [{ sendInvoice }] }),
      controllers: [InvoicesController], // OutboxModule's global OutboxInterceptor wraps it in a transaction
    }).compile();
    app = moduleRef.createNestApplication({ logger: false });
    // No HTTP instrumentation is installed: this middleware is the server span an instrumented app would have.
    app.use((req: Request, res: Response, next: NextFunction) => {
      tracing.tracer.startActiveSpan(
        `${req.method} ${req.path}`,
        { kind: SpanKind.SERVER },
        (span) => {
          res.on('finish', () => span.end());
          next();
        },
      );
    });
    await app.init();
  });

  it('shares one traceId, the run a child of the request span and the step a child of the run', async () => {
    const res = await request(app.getHttpServer())
      .post('/invoices')
      .send({ customer: 'acme' })
      .expect(201);
    const { jobId } = res.body as { jobId: string };
    await until(() => tracing.spans().some((s) => s.name === 'job outbox-trace.send-invoice'));

    const http = tracing.span('POST /invoices');
    const run = tracing.span('job outbox-trace.send-invoice');
    const step = tracing.span('step.run render');
    const { traceId, spanId } = http.spanContext();
    expect(new Set([http, run, step].map((s) => s.spanContext().traceId))).toEqual(
      new Set([traceId]),
    );
    expect(parentOf(http)).toBeUndefined();
    expect(parentOf(run)).toBe(spanId);
    expect(parentOf(step)).toBe(run.spanContext().spanId);
    expect(run.kind).toBe(SpanKind.CONSUMER);
    expect(run.attributes).toMatchObject({
      'jobs.job.id': jobId,
      'jobs.attempt': 1,
      'jobs.outcome': 'completed',
    });
    expect([run.status.code, step.status.code]).toEqual([
      SpanStatusCode.UNSET,
      SpanStatusCode.UNSET,
    ]);

    // the traceparent travelled in the staged request and landed on the job row the relay wrote
    const traceparent = `00-${traceId}-${spanId}-01`;
    const { rows } = await db.pool.query<{ staged: string | null; row: string | null }>(
      `select o.request::json ->> 'traceparent' as staged, j.traceparent as row
         from x_outbox o join x_jobs j on j.id = o.id where o.id = $1`,
      [jobId],
    );
    expect(rows).toEqual([{ staged: traceparent, row: traceparent }]);
  });
});
