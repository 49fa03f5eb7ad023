import { Controller, Get, Inject, Res, type Type } from '@nestjs/common';
import { JobsMetricsCollector } from './jobs-metrics.collector';

/** The part of the platform's response the scrape sets its content type on (Express' and Fastify's both have it). */
interface HeaderSink {
  header(name: string, value: string): unknown;
}

/**
 * A controller answering `GET <path>` with the registry's text exposition — the series of `forRoot({ metrics })` and
 * whatever else the registry holds. A class per path: Nest reads a controller's path from its class.
 */
export function jobsMetricsController(path: string): Type<unknown> {
  @Controller(path)
  class JobsMetricsController {
    constructor(@Inject(JobsMetricsCollector) private readonly collector: JobsMetricsCollector) {}

    @Get()
    async scrape(@Res({ passthrough: true }) res: HeaderSink): Promise<string> {
      const registry = this.collector.registry;
      if (registry === undefined) return '';
      res.header('Content-Type', registry.contentType);
      return registry.metrics();
    }
  }
  return JobsMetricsController;
}
