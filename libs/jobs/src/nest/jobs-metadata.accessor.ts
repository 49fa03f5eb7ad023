import { Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { AnyJobHandle } from '../declare/handle';
import { JOB_METADATA } from './jobs.constants';

/** Reads what `@Job(handle)` wrote on a method. */
@Injectable()
export class JobsMetadataAccessor {
  constructor(private readonly reflector: Reflector) {}

  /** The handle `method` is bound to, if it carries `@Job`. */
  getJobHandle(method: unknown): AnyJobHandle | undefined {
    if (typeof method !== 'function') return undefined;
    return this.reflector.get<AnyJobHandle | undefined>(JOB_METADATA, method);
  }
}
