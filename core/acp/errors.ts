/** Engine errors as JSON-RPC errors: bad input names the field, a missing provider asks for setup. */
import { RequestError } from "@agentclientprotocol/sdk";
import { errorMessage, ReasonixError } from "../errors.ts";

export function toRequestError(e: unknown, fieldName?: string): RequestError {
  if (e instanceof RequestError) return e;
  if (e instanceof ReasonixError) {
    const msg = e.hint ? `${e.message} (${e.hint})` : e.message;
    if (/no (model provider is configured|\[\[providers\]\] configured)/.test(e.message)) {
      return RequestError.authRequired({ setup: "reasonix setup" }, msg.includes("reasonix setup") ? msg : `${msg}; run \`reasonix setup\``);
    }
    if (["workspace", "session_id", "session_workspace", "session_not_found", "usage"].includes(e.code) || e.exitCode === 2) {
      return RequestError.invalidParams(fieldName ? { field: fieldName } : {}, fieldName ? `${fieldName}: ${msg}` : msg);
    }
    return RequestError.internalError({ code: e.code }, msg);
  }
  return RequestError.internalError({}, errorMessage(e));
}

