/**
 * A registry entry turned into a user-config server: npm -> `npx -y
 * pkg@ver`, pypi -> `uvx pkg==ver`, oci -> `docker run -i --rm …`, a remote
 * -> http/sse with its headers. Inputs the publisher left open (arguments,
 * environment variables, headers) are filled from the answers the caller
 * collected (flags, a terminal); a secret goes to $REASONIX_HOME/.env under
 * `MCP_<NAME>_<FIELD>` and the config says `${MCP_<NAME>_<FIELD>}`. A
 * required input without an answer leaves the plan `missing` it: the caller
 * shows the manual setup and installs nothing.
 */
import type { AddServer } from "../edit.ts";
import type { RegistryArgument, RegistryInput, RegistryKeyValue, RegistryPackage, RegistryRemote, RegistryServer } from "./schema.ts";

/** One value the user may (or must) give. */
export interface PlanInput {
  /** What `--env`/`--header`/`--arg`/`--var` key names it. */
  key: string;
  kind: "env" | "header" | "arg" | "variable";
  description?: string;
  required: boolean;
  secret: boolean;
  default?: string;
  choices?: string[];
}

export interface InstallPlan {
  /** What was chosen: `npm @scope/pkg@1.2.3`, `remote streamable-http https://…`. */
  source: string;
  server: AddServer;
  /** Secrets to store in .env (variable -> value). */
  secrets: Record<string, string>;
  /** Inputs that are required and have no answer. */
  missing: PlanInput[];
  /** Every open input of the chosen source (for prompts and the manual setup text). */
  inputs: PlanInput[];
}

export type Answers = { env: Record<string, string>; header: Record<string, string>; arg: Record<string, string>; variable?: Record<string, string> };

/** The `{name}` placeholders of a remote's URL. */
const placeholders = (url: string) => [...url.matchAll(/\{([A-Za-z_][A-Za-z0-9_]*)\}/g)].map((m) => m[1]!);

export const SUPPORTED_PACKAGES = ["npm", "pypi", "oci"];

/** The source to install: a supported stdio package, else a remote (or the other way with preferRemote). */
export function chooseSource(s: RegistryServer, preferRemote = false): { pkg?: RegistryPackage; remote?: RegistryRemote } | undefined {
  const pkg = s.packages.find((p) => SUPPORTED_PACKAGES.includes(p.registryType) && p.transport.type === "stdio");
  // A URL placeholder the entry does not declare cannot be asked for: that remote is not installable.
  const remote = s.remotes.find((r) => (r.type === "streamable-http" || r.type === "sse") && placeholders(r.url).every((p) => r.variables.some((v) => v.name === p)));
  if (preferRemote && remote) return { remote };
  if (pkg) return { pkg };
  if (remote) return { remote };
  return undefined;
}

/** How an entry can be run, for listings: `npm`, `pypi`, `remote streamable-http`… */
export const sourceKinds = (s: RegistryServer): string[] => [...new Set([...s.packages.map((p) => p.registryType), ...s.remotes.map((r) => `remote ${r.type}`)])];

/** Why an entry has no source Reasonix installs (for the manual-setup text). */
export const noSourceReason = (s: RegistryServer): string =>
  `it offers no source Reasonix can install (${sourceKinds(s).join(" · ") || "no install method"}); supported: npm, pypi and oci packages over stdio, streamable-http and sse remotes`;

/** The default local name: the part after the last `/` of the registry name, cleaned. */
export const localNameOf = (registryName: string) =>
  registryName
    .split("/")
    .at(-1)!
    .replace(/[^A-Za-z0-9_-]/g, "-")
    .replace(/^-+|-+$/g, "") || "server";

const argKey = (a: RegistryArgument) => (a.type === "named" ? a.name!.replace(/^-+/, "") : a.valueHint!);
const secretVar = (name: string, field: string) => `MCP_${name}_${field}`.toUpperCase().replace(/[^A-Z0-9_]/g, "_");

/** Every open input of a source, in order. */
export function inputsOf(src: { pkg?: RegistryPackage; remote?: RegistryRemote }): PlanInput[] {
  const out: PlanInput[] = [];
  const open = (i: RegistryInput) => i.value === undefined;
  const add = (key: string, kind: PlanInput["kind"], i: RegistryInput) =>
    out.push({ key, kind, description: i.description, required: i.isRequired, secret: i.isSecret, default: i.default, ...(i.choices ? { choices: i.choices } : {}) });
  if (src.pkg) {
    for (const a of [...src.pkg.runtimeArguments, ...src.pkg.packageArguments]) if (open(a)) add(argKey(a), "arg", a);
    for (const e of src.pkg.environmentVariables) if (open(e)) add(e.name, "env", e);
  }
  for (const h of src.remote?.headers ?? []) if (open(h)) add(h.name, "header", h);
  // URL variables: every placeholder needs a value, whatever the entry says about isRequired.
  const used = placeholders(src.remote?.url ?? "");
  for (const v of src.remote?.variables ?? []) if (open(v) && used.includes(v.name)) add(v.name, "variable", { ...v, isRequired: v.isRequired || v.default === undefined });
  return out;
}

export function planInstall(s: RegistryServer, name: string, answers: Answers, preferRemote = false): InstallPlan | undefined {
  const src = chooseSource(s, preferRemote);
  if (!src) return undefined;
  const inputs = inputsOf(src);
  const secrets: Record<string, string> = {};
  const missing: PlanInput[] = [];
  /** The value for an input: fixed, answered, defaulted; a secret becomes a ${VAR} reference. */
  const valueOf = (i: RegistryInput, key: string, kind: PlanInput["kind"]): string | undefined => {
    if (i.value !== undefined) return i.value;
    const given = (answers[kind] ?? {})[key] ?? i.default;
    if (given === undefined || given === "") {
      if (i.isRequired) missing.push(inputs.find((x) => x.key === key && x.kind === kind)!);
      return undefined;
    }
    if (!i.isSecret) return given;
    const v = secretVar(name, key);
    secrets[v] = given;
    return `\${${v}}`;
  };
  const args = (list: RegistryArgument[]) =>
    list.flatMap((a) => {
      const v = valueOf(a, argKey(a), "arg");
      if (v === undefined) return [];
      return a.type === "named" ? [`${a.name}=${v}`] : [v];
    });
  const kv = (list: RegistryKeyValue[], kind: "env" | "header") => {
    const out: Record<string, string> = {};
    for (const e of list) {
      const v = valueOf(e, e.name, kind);
      if (v !== undefined) out[e.name] = v;
    }
    return out;
  };
  if (src.remote) {
    const r = src.remote;
    const url = r.url.replace(/\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (whole, p: string) => {
      const v = r.variables.find((x) => x.name === p)!;
      return valueOf({ ...v, isRequired: v.isRequired || v.default === undefined }, p, "variable") ?? whole;
    });
    const server: AddServer = { name, type: r.type === "sse" ? "sse" : "http", url, headers: kv(r.headers, "header") };
    return { source: `remote ${r.type} ${r.url}`, server, secrets, missing, inputs };
  }
  const p = src.pkg!;
  const runtime = args(p.runtimeArguments);
  const pkgArgs = args(p.packageArguments);
  const env = kv(p.environmentVariables, "env");
  const at = p.version ? `@${p.version}` : "";
  let command: string;
  let argv: string[];
  if (p.registryType === "npm") {
    command = "npx";
    argv = [...runtime, ...(runtime.some((a) => a === "-y" || a === "--yes") ? [] : ["-y"]), `${p.identifier}${at}`, ...pkgArgs];
  } else if (p.registryType === "pypi") {
    command = "uvx";
    argv = [...runtime, `${p.identifier}${p.version ? `==${p.version}` : ""}`, ...pkgArgs];
  } else {
    command = "docker";
    const tagged = /:[^/]+$/.test(p.identifier) || p.identifier.includes("@sha256:") || !p.version ? p.identifier : `${p.identifier}:${p.version}`;
    // The container sees only the variables passed by name (their values come from the server's env).
    argv = ["run", "-i", "--rm", ...runtime, ...Object.keys(env).flatMap((k) => ["-e", k]), tagged, ...pkgArgs];
  }
  return { source: `${p.registryType} ${p.identifier}${at}`, server: { name, type: "stdio", command, args: argv, env }, secrets, missing, inputs };
}
