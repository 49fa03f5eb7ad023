import { Catch, HttpStatus, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import { JobsError } from '@ultimat3/jobs';
import type { Response } from 'express';

const STATUS: Partial<Record<JobsError['code'], HttpStatus>> = {
  X_JOB_INPUT_INVALID: HttpStatus.BAD_REQUEST,
  X_JOB_PAYLOAD_TOO_LARGE: HttpStatus.PAYLOAD_TOO_LARGE,
  X_JOB_DUPLICATE: HttpStatus.CONFLICT,
  X_JOB_NOT_FOUND: HttpStatus.NOT_FOUND,
  X_DRIVER_UNAVAILABLE: HttpStatus.SERVICE_UNAVAILABLE,
};

/** Answers a jobs error with its code and message: a bad input is the caller's 400, not the server's 500. */
@Catch(JobsError)
export class JobsErrorFilter implements ExceptionFilter<JobsError> {
  catch(error: JobsError, host: ArgumentsHost): void {
    const status = STATUS[error.code] ?? HttpStatus.INTERNAL_SERVER_ERROR;
    host
      .switchToHttp()
      .getResponse<Response>()
      .status(status)
      .json({ statusCode: status, code: error.code, message: error.message });
  }
}
