import {
  Injectable,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';

/**
 * Holds the process open between bootstrap and shutdown. The worker's timers never keep a process alive (so a script
 * or a test can end), and an application context has no server that would.
 */
@Injectable()
export class KeepAlive implements OnApplicationBootstrap, OnApplicationShutdown {
  #timer: NodeJS.Timeout | undefined;

  onApplicationBootstrap(): void {
    this.#timer = setInterval(() => undefined, 1 << 30);
  }

  onApplicationShutdown(): void {
    clearInterval(this.#timer);
  }
}
