// How every answer of the serve API is shaped: JSON bodies, `{ error: { code, message } }`
// problems, and the security headers each response carries.
import { errorMessage, ReasonixError } from "../../errors.ts";
import { ApiError } from "../api-error.ts";

const SECURITY_HEADERS: Record<string, string> = {
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "x-frame-options": "DENY",
  "cache-control": "no-store",
};
export const CSP = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

export function withHeaders(res: Response, extra?: Record<string, string>): Response {
  for (const [k, v] of Object.entries(SECURITY_HEADERS)) if (!res.headers.has(k)) res.headers.set(k, v);
  for (const [k, v] of Object.entries(extra ?? {})) res.headers.set(k, v);
  return res;
}

export const json = (body: unknown, status = 200, headers?: Record<string, string>): Response =>
  withHeaders(Response.json(body, { status }), headers);

export const problem = (status: number, code: string, message: string, headers?: Record<string, string>): Response =>
  json({ error: { code, message } }, status, headers);

/** 204 with the security headers (and e.g. a cookie). */
export const noContent = (headers?: Record<string, string>): Response => withHeaders(new Response(null, { status: 204 }), headers);

/** What a thrown error becomes: its own status for ApiError, 400 for a ReasonixError, else 500. */
export function errorResponse(e: unknown): Response {
  if (e instanceof ApiError) return problem(e.status, e.code, e.message);
  if (e instanceof ReasonixError) return problem(400, e.code, e.message);
  return problem(500, "internal", errorMessage(e));
}

/** The answer for a method and path no route takes (there is no 405: a wrong method is an unknown route). */
export const noRoute = (method: string, path: string): Response => problem(404, "not_found", `no route ${method} ${path}`);
