import { Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { AnyJobHandle } from '../declare/handle';
import type { TaskMethodBinding } from './decorators/task.decorator';
import { JOB_METADATA, TASK_METADATA } from './jobs.constants';

/** Reads what `@Job(handle)` and `@Task(options)` wrote on a method. */
@Injectable()
export class JobsMetadataAccessor {
  constructor(private readonly reflector: Reflector) {}

  /** The handle `method` is bound to, if it carries `@Job`. */
  getJobHandle(method: unknown): AnyJobHandle | undefined {
    if (typeof method !== 'function') return undefined;
    return this.reflector.get<AnyJobHandle | undefined>(JOB_METADATA, method);
  }

  /** The task `method` declares, if it carries `@Task`. */
  getTaskBinding(method: unknown): TaskMethodBinding | undefined {
    if (typeof method !== 'function') return undefined;
    return this.reflector.get<TaskMethodBinding | undefined>(TASK_METADATA, method);
  }
}
