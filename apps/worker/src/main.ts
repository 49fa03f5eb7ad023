import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { WorkerModule } from './app.module';

/**
 * Starts the worker and the scheduler. SIGTERM stops the scheduler after its round, then stops claiming, hands held
 * runs back, and waits for them before the process exits.
 */
async function bootstrap(): Promise<void> {
  const app = await NestFactory.createApplicationContext(WorkerModule);
  app.enableShutdownHooks();
  new Logger('Worker').log('worker started');
}

void bootstrap();
