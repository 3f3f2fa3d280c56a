/**
 * The MCP Registry's server.json, as its v0 API returns it: a list
 * `{ servers: [{ server, _meta }], metadata: { nextCursor, count } }`, each
 * `server` with `name`, `description`, `version`, `packages[]` (registryType,
 * identifier, version, transport, runtimeHint, runtimeArguments,
 * packageArguments, environmentVariables) and `remotes[]` (type, url,
 * headers). Inputs (arguments, variables, headers) carry isRequired,
 * isSecret, default, value, description. Parsing keeps what installing
 * needs and fails naming the field (`servers[3].server.packages[0].identifier`)
 * when the registry sends something else; unknown fields are ignored.
 */
import { ReasonixError } from "../../errors.ts";

export interface RegistryInput {
  description?: string;
  isRequired: boolean;
  isSecret: boolean;
  /** Fixed by the publisher; the user is not asked. */
  value?: string;
  default?: string;
  choices?: string[];
}

export interface RegistryArgument extends RegistryInput {
  type: "positional" | "named";
  /** named: the flag (`--port`). */
  name?: string;
  /** positional: a label for the value. */
  valueHint?: string;
}

export interface RegistryKeyValue extends RegistryInput {
  name: string;
}

export interface RegistryPackage {
  registryType: string;
  identifier: string;
  version?: string;
  runtimeHint?: string;
  transport: { type: string; url?: string };
  runtimeArguments: RegistryArgument[];
  packageArguments: RegistryArgument[];
  environmentVariables: RegistryKeyValue[];
}

export interface RegistryRemote {
  type: string;
  /** May hold `{name}` placeholders, each declared in `variables`. */
  url: string;
  headers: RegistryKeyValue[];
  /** The URL's `{name}` placeholders (`variables: { name: {description, isRequired, default, choices, isSecret} }`). */
  variables: RegistryKeyValue[];
}

export interface RegistryServer {
  name: string;
  title?: string;
  description: string;
  version: string;
  websiteUrl?: string;
  repository?: string;
  packages: RegistryPackage[];
  remotes: RegistryRemote[];
  /** From `_meta["io.modelcontextprotocol.registry/official"]`. */
  status?: string;
  isLatest?: boolean;
}

export interface RegistryPage {
  servers: RegistryServer[];
  nextCursor?: string;
}

const bad = (field: string, what: string) =>
  new ReasonixError("mcp-registry", `the registry sent an entry this version cannot read: ${field} ${what}`, { hint: "check [mcp] registry_url points at an MCP Registry (v0 API)" });

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

function obj(v: unknown, field: string): Obj {
  if (!isObj(v)) throw bad(field, "is not an object");
  return v;
}
function str(o: Obj, k: string, field: string): string {
  const v = o[k];
  if (typeof v !== "string" || v === "") throw bad(`${field}.${k}`, v === undefined ? "is missing" : "is not a non-empty string");
  return v;
}
function optStr(o: Obj, k: string, field: string): string | undefined {
  const v = o[k];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== "string") throw bad(`${field}.${k}`, "is not a string");
  return v;
}
function list(o: Obj, k: string, field: string): unknown[] {
  const v = o[k];
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw bad(`${field}.${k}`, "is not a list");
  return v;
}

function input(o: Obj, field: string): RegistryInput {
  const choices = list(o, "choices", field).filter((c): c is string => typeof c === "string");
  return {
    description: optStr(o, "description", field),
    isRequired: o.isRequired === true,
    isSecret: o.isSecret === true,
    value: optStr(o, "value", field),
    default: optStr(o, "default", field),
    ...(choices.length ? { choices } : {}),
  };
}

function argument(v: unknown, field: string): RegistryArgument {
  const o = obj(v, field);
  const type = str(o, "type", field);
  if (type !== "positional" && type !== "named") throw bad(`${field}.type`, `is ${JSON.stringify(type)} (expected positional or named)`);
  const a: RegistryArgument = { ...input(o, field), type, name: optStr(o, "name", field), valueHint: optStr(o, "valueHint", field) };
  if (type === "named" && !a.name) throw bad(`${field}.name`, "is missing (a named argument needs its flag)");
  if (type === "positional" && a.value === undefined && !a.valueHint) throw bad(`${field}.valueHint`, "is missing (a positional argument needs a value or a valueHint)");
  return a;
}

function keyValue(v: unknown, field: string): RegistryKeyValue {
  const o = obj(v, field);
  return { ...input(o, field), name: str(o, "name", field) };
}

function pkg(v: unknown, field: string): RegistryPackage {
  const o = obj(v, field);
  const t = obj(o.transport ?? { type: "stdio" }, `${field}.transport`);
  return {
    registryType: str(o, "registryType", field),
    identifier: str(o, "identifier", field),
    version: optStr(o, "version", field),
    runtimeHint: optStr(o, "runtimeHint", field),
    transport: { type: str(t, "type", `${field}.transport`), url: optStr(t, "url", `${field}.transport`) },
    runtimeArguments: list(o, "runtimeArguments", field).map((a, i) => argument(a, `${field}.runtimeArguments[${i}]`)),
    packageArguments: list(o, "packageArguments", field).map((a, i) => argument(a, `${field}.packageArguments[${i}]`)),
    environmentVariables: list(o, "environmentVariables", field).map((e, i) => keyValue(e, `${field}.environmentVariables[${i}]`)),
  };
}

function remote(v: unknown, field: string): RegistryRemote {
  const o = obj(v, field);
  const vars = o.variables === undefined || o.variables === null ? {} : obj(o.variables, `${field}.variables`);
  return {
    type: str(o, "type", field),
    url: str(o, "url", field),
    headers: list(o, "headers", field).map((h, i) => keyValue(h, `${field}.headers[${i}]`)),
    variables: Object.entries(vars).map(([name, x]) => ({ ...input(obj(x, `${field}.variables.${name}`), `${field}.variables.${name}`), name })),
  };
}

/** One `{ server, _meta }` item of a list or a single-version answer. */
export function parseServerResponse(v: unknown, field: string): RegistryServer {
  const o = obj(v, field);
  const s = obj(o.server, `${field}.server`);
  const f = `${field}.server`;
  const meta = isObj(o._meta) && isObj(o._meta["io.modelcontextprotocol.registry/official"]) ? (o._meta["io.modelcontextprotocol.registry/official"] as Obj) : {};
  const repo = isObj(s.repository) && typeof s.repository.url === "string" ? s.repository.url : undefined;
  return {
    name: str(s, "name", f),
    title: optStr(s, "title", f),
    description: optStr(s, "description", f) ?? "",
    version: str(s, "version", f),
    websiteUrl: optStr(s, "websiteUrl", f),
    repository: repo,
    packages: list(s, "packages", f).map((p, i) => pkg(p, `${f}.packages[${i}]`)),
    remotes: list(s, "remotes", f).map((r, i) => remote(r, `${f}.remotes[${i}]`)),
    status: typeof meta.status === "string" ? meta.status : undefined,
    isLatest: typeof meta.isLatest === "boolean" ? meta.isLatest : undefined,
  };
}

/** A `GET /v0/servers` answer. */
export function parseServerList(v: unknown): RegistryPage {
  const o = obj(v, "the answer");
  if (!Array.isArray(o.servers)) throw bad("servers", o.servers === undefined ? "is missing" : "is not a list");
  const meta = isObj(o.metadata) ? o.metadata : {};
  const next = typeof meta.nextCursor === "string" && meta.nextCursor !== "" ? meta.nextCursor : undefined;
  return { servers: o.servers.map((s, i) => parseServerResponse(s, `servers[${i}]`)), nextCursor: next };
}
