// The web UI's "Browse registry" and "Import" (routes/mcp.ts): the same steps
// as `reasonix mcp browse/install/import`, on the server's host. Every write
// goes to the user config of $REASONIX_HOME through addServerWithSecrets
// (secrets to its .env, 0600, referenced as ${VAR}); the registry's URL is a
// user-config-only key; a workspace's own agent files are imported only when
// an entry from them is named. Secret values never leave in an answer
// (scrub.ts: how, without garbling an answer when a secret is very short).
import { homedir } from "node:os";
import { loadConfig } from "../config/load.ts";
import { errorMessage, ReasonixError } from "../errors.ts";
import { homePaths } from "../home.ts";
import { addServerWithSecrets, configFileFor, serverNames } from "../mcp/edit.ts";
import { candidateRow, importCandidates } from "../mcp/import/candidates.ts";
import { getServer, listServers, RegistryHttpError } from "../mcp/registry/client.ts";
import { registryOptionsOf } from "../mcp/registry/options.ts";
import { localNameOf, noSourceReason, planInstall, sourceKinds, type Answers, type PlanInput } from "../mcp/registry/plan.ts";
import type { RegistryServer } from "../mcp/registry/schema.ts";
import { testDeclared, type TestReport } from "../mcp/report.ts";
import { ApiError } from "./api-error.ts";
import { scrubSecrets } from "./scrub.ts";

export interface InstallRequest {
  name: string;
  version?: string;
  /** Local name (default: the registry name's last part). */
  as?: string;
  values: Answers;
  remote?: boolean;
  /** Start it once and report what it offers (default true). */
  test?: boolean;
}

/** Registry failures as HTTP answers: a timeout 504, anything else from the registry 502, an unknown server 404. */
async function registryCall<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    if (e instanceof RegistryHttpError) throw new ApiError(e.timeout ? 504 : 502, e.timeout ? "registry_timeout" : "registry_error", e.message);
    if (e instanceof ReasonixError && e.code === "mcp-registry" && / has no server /.test(e.message)) throw new ApiError(404, "not_found", e.message);
    if (e instanceof ReasonixError && e.code === "mcp-registry") throw new ApiError(502, "registry_error", e.message);
    throw e;
  }
}

const summary = (s: RegistryServer) => ({
  name: s.name,
  title: s.title ?? null,
  description: s.description,
  version: s.version,
  kinds: sourceKinds(s),
  status: s.status ?? null,
  websiteUrl: s.websiteUrl ?? null,
  repository: s.repository ?? null,
});

const inputRow = (i: PlanInput) => ({ key: i.key, kind: i.kind, description: i.description ?? null, required: i.required, secret: i.secret, default: i.secret ? null : i.default ?? null, choices: i.choices ?? null });

export function mcpSetup(home: string, workspace: () => string, userHome = () => process.env.HOME || homedir()) {
  const loaded = () => loadConfig({ cwd: workspace(), home });
  const file = () => configFileFor({ home });
  const registry = (timeoutMs?: number) => registryOptionsOf(loaded(), timeoutMs);
  const test = (name: string): Promise<TestReport> => testDeclared(name, { workspace: workspace(), home });

  return {
    async search(o: { query?: string; cursor?: string; limit: number; timeoutMs?: number }) {
      const page = await registryCall(() => listServers({ ...registry(o.timeoutMs), search: o.query, cursor: o.cursor, limit: o.limit }));
      return { servers: page.servers.map(summary), nextCursor: page.nextCursor ?? null, stale: page.stale ?? null };
    },

    /** What installing NAME takes: its values (required, secret), or why it needs setup by hand. */
    async plan(o: { name: string; version?: string; remote?: boolean }) {
      const s = await registryCall(() => getServer({ ...registry(), name: o.name, version: o.version }));
      const local = localNameOf(s.name);
      const plan = planInstall(s, local, { env: {}, header: {}, arg: {}, variable: {} }, o.remote);
      const hasRemote = s.remotes.length > 0 && s.packages.length > 0;
      return {
        server: summary(s),
        name: local,
        taken: serverNames(file()).includes(local),
        source: plan?.source ?? null,
        inputs: plan?.inputs.map(inputRow) ?? [],
        manual: plan ? null : noSourceReason(s),
        canPreferRemote: hasRemote,
        stale: s.stale ?? null,
      };
    },

    async install(r: InstallRequest) {
      /** The secret values given (known once planned): hidden from the answer and from errors. */
      let given: string[] = [];
      try {
        const s = await registryCall(() => getServer({ ...registry(), name: r.name, version: r.version }));
        const name = r.as || localNameOf(s.name);
        const plan = planInstall(s, name, r.values, r.remote);
        given = Object.values(plan?.secrets ?? {});
        if (!plan) throw new ApiError(422, "manual_setup", `${s.name} needs setup by hand: ${noSourceReason(s)}`);
        if (plan.missing.length) {
          const list = plan.missing.map((m) => `${m.key} (${m.kind})`).join(", ");
          throw new ApiError(422, "missing_values", `${s.name} was not installed: it needs ${list}`);
        }
        addServerWithSecrets(plan.server, plan.secrets, file(), homePaths(home).dotenv);
        const target = plan.server.type === "stdio" ? [plan.server.command, ...(plan.server.args ?? [])].join(" ") : plan.server.url ?? "";
        const done = { installed: true, name, registryName: s.name, version: s.version, source: plan.source, target, file: file(), secrets: Object.keys(plan.secrets), stale: s.stale ?? null };
        return scrubSecrets(r.test === false ? done : { ...done, test: await test(name) }, given);
      } catch (e) {
        // An error may quote what it was given: never a secret.
        if (e instanceof ApiError) throw new ApiError(e.status, e.code, scrubSecrets(e.message, given));
        if (e instanceof ReasonixError) throw new ReasonixError(e.code, scrubSecrets(e.message, given), { exitCode: e.exitCode });
        throw new Error(scrubSecrets(errorMessage(e), given));
      }
    },

    /** The servers the user's other agents declare (a workspace's files marked `project`). */
    candidates() {
      const { list, problems } = importCandidates(userHome(), workspace(), file());
      return { servers: list.map(candidateRow), problems, file: file() };
    },

    /** Import the entries named by id (as listed); each is started once unless `test` is false. */
    async import(ids: string[], runTest = true) {
      const { list } = importCandidates(userHome(), workspace(), file());
      const chosen = ids.map((id) => {
        const c = list.find((x) => x.id === id);
        if (!c) throw new ApiError(409, "changed", `no server with id ${id} in the list any more (a file changed); list them again`);
        if (c.skip) throw new ApiError(409, "not_importable", `${c.plan.server.name}: ${c.skip}`);
        return c;
      });
      const names = new Set<string>();
      for (const c of chosen) {
        if (names.has(c.plan.server.name)) throw new ApiError(400, "bad_request", `${c.plan.server.name} is chosen twice`);
        names.add(c.plan.server.name);
      }
      const secretValues = chosen.flatMap((c) => Object.values(c.plan.secrets));
      const imported = [];
      for (const c of chosen) {
        addServerWithSecrets(c.plan.server, c.plan.secrets, file(), homePaths(home).dotenv);
        imported.push({ ...candidateRow(c), imported: true, ...(runTest ? { test: await test(c.plan.server.name) } : {}) });
      }
      return scrubSecrets({ imported, file: file() }, secretValues);
    },
  };
}

export type McpSetup = ReturnType<typeof mcpSetup>;
