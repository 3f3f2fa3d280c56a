/**
 * Params of session/new, session/load and session/resume, checked here
 * rather than by the SDK's schema so that a mistake is one sentence naming
 * the field (`mcpServers[1].command must be a string`), not the schema
 * library's dump of every union branch it tried.
 */
import type * as acp from "@agentclientprotocol/sdk";
import { RequestError } from "@agentclientprotocol/sdk";

const kindOf = (v: unknown) => (v === null ? "null" : Array.isArray(v) ? "a list" : typeof v);
const refuse = (field: string, want: string, got: unknown): never => {
  throw RequestError.invalidParams({ field }, `${field} must be ${want} (got ${kindOf(got)})`);
};

function str(o: Record<string, unknown>, key: string, at: string): void {
  if (typeof o[key] !== "string") refuse(`${at}${key}`, "a string", o[key]);
}

function table(v: unknown, field: string): Record<string, unknown> {
  if (!v || typeof v !== "object" || Array.isArray(v)) refuse(field, "an object", v);
  return v as Record<string, unknown>;
}

/** A list of {name, value} string pairs (env, headers). */
function pairs(v: unknown, field: string): void {
  if (!Array.isArray(v)) refuse(field, "a list of {name, value}", v);
  (v as unknown[]).forEach((x, i) => {
    const p = table(x, `${field}[${i}]`);
    str(p, "name", `${field}[${i}].`);
    str(p, "value", `${field}[${i}].`);
  });
}

/** One entry of mcpServers, in the shape the ACP schema gives it. */
function checkServer(v: unknown, i: number): void {
  const at = `mcpServers[${i}]`;
  const s = table(v, at);
  const type = s.type;
  if (type === "acp") throw RequestError.invalidParams({ field: `${at}.type` }, `${at}.type: MCP over ACP is not supported (use stdio, http or sse)`);
  if (type !== undefined && type !== "stdio" && type !== "http" && type !== "sse") refuse(`${at}.type`, '"http", "sse" or absent (stdio)', type);
  str(s, "name", `${at}.`);
  if (type === "http" || type === "sse") {
    str(s, "url", `${at}.`);
    pairs(s.headers, `${at}.headers`);
    return;
  }
  str(s, "command", `${at}.`);
  if (!Array.isArray(s.args) || s.args.some((a) => typeof a !== "string")) refuse(`${at}.args`, "a list of strings", s.args);
  pairs(s.env, `${at}.env`);
}

function common(raw: unknown, o: { sessionId: boolean; mcpRequired: boolean }): Record<string, unknown> {
  const p = table(raw ?? {}, "params");
  if (o.sessionId) str(p, "sessionId", "");
  str(p, "cwd", "");
  if (p.mcpServers === undefined && !o.mcpRequired) return p;
  if (!Array.isArray(p.mcpServers)) refuse("mcpServers", "a list", p.mcpServers);
  (p.mcpServers as unknown[]).forEach(checkServer);
  return p;
}

export const newSessionParams = (raw: unknown) => common(raw, { sessionId: false, mcpRequired: true }) as unknown as acp.NewSessionRequest;
export const loadSessionParams = (raw: unknown) => common(raw, { sessionId: true, mcpRequired: true }) as unknown as acp.LoadSessionRequest;
export const resumeSessionParams = (raw: unknown) => common(raw, { sessionId: true, mcpRequired: false }) as unknown as acp.ResumeSessionRequest;
