// One error shape for every failure: {"error": code, "message": text, "field"?: name}.

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly field?: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

export const invalidField = (field: string, message: string) => new ApiError(400, "invalid_field", `${field}: ${message}`, field);

export function errorBody(e: ApiError): Record<string, string> {
  return e.field ? { error: e.code, field: e.field, message: e.message } : { error: e.code, message: e.message };
}
