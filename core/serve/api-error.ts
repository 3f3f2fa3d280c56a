import { ReasonixError } from "../errors.ts";

/** An API failure: the HTTP status, a machine-readable code and a sentence saying why. */
export class ApiError extends Error {
  constructor(readonly status: number, readonly code: string, message: string) {
    super(message);
  }
}

/**
 * Run `run`; a refusal among `statuses` (a ReasonixError by code) becomes an
 * ApiError with that status, keeping its code and sentence.
 */
export function withStatuses<T>(statuses: Record<string, number>, run: () => T): T {
  try {
    return run();
  } catch (e) {
    const status = e instanceof ReasonixError ? statuses[e.code] : undefined;
    if (status) throw new ApiError(status, (e as ReasonixError).code, (e as Error).message);
    throw e;
  }
}
