import {
  Body,
  ConflictException,
  Controller,
  Get,
  HttpCode,
  HttpStatus,
  NotFoundException,
  Param,
  Post as HttpPost,
  ServiceUnavailableException,
} from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { POST_SLUG_BACKFILL, postSlugBackfill } from '@ultimat3/example-jobs';
import {
  defaultBackfillEnvironment,
  gateBackfill,
  hasJobsFacade,
  inspectBackfills,
  JobsError,
  jobsFacade,
  JobsService,
  ledgerRunsOf,
  readAppliedMigrations,
  registeredBackfills,
  type BackfillHandle,
  type BackfillLedger,
  type BackfillPassView,
} from '@ultimat3/jobs';
import type { DataSource } from 'typeorm';

/** The body of `POST /backfills/:name`. */
export interface TriggerBackfillBody {
  /** Sweep a completed name again, into a new ledger row. */
  readonly force?: unknown;
}

/** What a trigger answers: the gate passed, and the pass is queued for the worker. */
export interface TriggeredBackfill {
  readonly name: string;
  readonly environment: string;
  /** The migration the gate found applied, or null when the backfill requires none. */
  readonly requires: string | null;
  readonly job: { readonly id: string; readonly runId: string; readonly deduped: boolean };
}

/**
 * The example's deploy trigger for its backfills, over HTTP: what `x db backfill <name> --write` does, from inside the
 * web app — gate (declared, this environment, its `requires` migration applied to this DataSource, no pass in flight,
 * none completed unless `force`), then enqueue; the worker sweeps. It answers at once; the pass's ledger row
 * (`GET /backfills/:name`) says how far it got. A refused gate answers 409 with its `X_BACKFILL_*` code.
 */
@Controller('backfills')
export class BackfillsController {
  /** The backfills this app may trigger, by name. */
  private readonly handles = new Map<string, BackfillHandle>([
    [POST_SLUG_BACKFILL, postSlugBackfill],
  ]);

  constructor(
    private readonly jobs: JobsService,
    @InjectDataSource() private readonly dataSource: DataSource,
  ) {}

  /** Gates the backfill, then queues its pass. */
  @HttpPost(':name')
  @HttpCode(HttpStatus.ACCEPTED)
  async trigger(
    @Param('name') name: string,
    @Body() body: TriggerBackfillBody | undefined,
  ): Promise<TriggeredBackfill> {
    const handle = this.handleOf(name);
    const force = body?.force === true;
    const environment = this.environment();
    const declarations = registeredBackfills().filter((d) => d.name === name);
    let requires: string | null;
    try {
      requires = gateBackfill({
        name,
        environment,
        declarations,
        runs: await ledgerRunsOf(this.ledger(), declarations),
        appliedMigrations: await readAppliedMigrations(this.dataSource),
        force,
      }).requires;
    } catch (error) {
      if (error instanceof JobsError && error.code.startsWith('X_BACKFILL_')) {
        throw new ConflictException({ code: error.code, message: error.message });
      }
      throw error;
    }
    const { id, runId, deduped } = await this.jobs.enqueue(handle, force ? { force: true } : {});
    return { name, environment, requires, job: { id, runId, deduped } };
  }

  /** The backfill's passes in the ledger, newest first. */
  @Get(':name')
  passes(@Param('name') name: string): Promise<BackfillPassView[]> {
    this.handleOf(name);
    return inspectBackfills(this.ledger(), { name, limit: 10 });
  }

  private handleOf(name: string): BackfillHandle {
    const handle = this.handles.get(name);
    if (handle === undefined) throw new NotFoundException(`No backfill is declared as ${name}.`);
    return handle;
  }

  /** The ledger `JobsModule` handed the installed facade (the backend's: PostgreSQL or Redis). */
  private ledger(): BackfillLedger {
    const ledger = hasJobsFacade() ? jobsFacade().backfills?.ledger : undefined;
    if (ledger === undefined) {
      throw new ServiceUnavailableException('The jobs backend keeps no backfill ledger.');
    }
    return ledger;
  }

  private environment(): string {
    return (
      (hasJobsFacade() ? jobsFacade().backfills?.environment : undefined) ??
      defaultBackfillEnvironment()
    );
  }
}
