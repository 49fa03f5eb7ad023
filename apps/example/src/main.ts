import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { AppModule } from './app.module';

/** Starts the example on PORT (default 3000). SIGTERM drains the worker before the process exits. */
async function bootstrap(): Promise<void> {
  const app = await NestFactory.create(AppModule);
  app.enableShutdownHooks();
  const port = Number(process.env['PORT'] ?? 3000);
  await app.listen(port);
  new Logger('Example').log(`listening on http://localhost:${port}`);
}

void bootstrap();
