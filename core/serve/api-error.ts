/** An API failure: the HTTP status, a machine-readable code and a sentence saying why. */
export class ApiError extends Error {
  constructor(readonly status: number, readonly code: string, message: string) {
    super(message);
  }
}
