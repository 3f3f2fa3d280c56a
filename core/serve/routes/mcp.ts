// MCP servers from the registry and from the user's other agents
// (core/serve/mcp-setup.ts): search, an install plan, install with values,
// import candidates and import. Behind the same Host/Origin/credential
// checks as every /api/ route (app.ts registers it after them).
import { homedir } from "node:os";
import { ApiError } from "../api-error.ts";
import { mcpSetup } from "../mcp-setup.ts";
import type { Answers } from "../../mcp/registry/plan.ts";
import { flag, need, readJson, str, type Body } from "./body.ts";
import type { ServeApp, ServeDeps } from "./context.ts";
import { json } from "./respond.ts";

/** `values: { env: {K: V}, header: {…}, arg: {…}, variable: {…} }`: single-line strings only. */
function answers(body: Body): Required<Answers> {
  const v = body.values ?? {};
  const out: Required<Answers> = { env: {}, header: {}, arg: {}, variable: {} };
  if (typeof v !== "object" || v === null || Array.isArray(v)) throw new ApiError(400, "bad_request", '"values" must be an object { env, header, arg, variable } of name → value');
  for (const [kind, map] of Object.entries(v)) {
    if (!(kind in out)) throw new ApiError(400, "bad_request", `values.${kind}: expected env, header, arg or variable`);
    if (typeof map !== "object" || map === null || Array.isArray(map)) throw new ApiError(400, "bad_request", `values.${kind} must be an object of name → value`);
    for (const [k, x] of Object.entries(map)) {
      // Named, never quoted: the value may be a secret.
      if (typeof x !== "string" || /[\r\n\0]/.test(x)) throw new ApiError(400, "bad_value", `values.${kind}.${k} must be a single-line string`);
      if (x !== "") out[kind as keyof Answers][k] = x;
    }
  }
  return out;
}

const number = (raw: string | null, what: string, min: number, max: number): number | undefined => {
  if (raw === null || raw === "") return undefined;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max) throw new ApiError(400, "bad_request", `${what} must be a whole number from ${min} to ${max}`);
  return n;
};

export function mcpRoutes(app: ServeApp, deps: ServeDeps): void {
  const { sessions } = deps;
  const setup = mcpSetup(deps.setupHome, () => sessions.engineWorkspace, () => process.env.HOME || homedir());
  /**
   * The engine reads its servers when it is built: rebuild it (as a trust
   * approval does) so new and reopened sessions have the new server, unless
   * a turn is running (a rebuild would cancel it; then the next restart does).
   */
  const reload = async () => {
    if (sessions.anyBusy()) return { reloaded: false, ready: sessions.ready, error: "a turn is running: the server is used from the next restart" };
    const ok = await sessions.build();
    return { reloaded: ok, ready: ok, error: sessions.error ?? null };
  };

  app.get("/api/mcp/registry", async (c) => {
    const q = c.env.url.searchParams;
    const timeout = number(q.get("timeout"), "timeout", 1, 60);
    return json(await setup.search({
      query: (q.get("q") ?? "").slice(0, 200) || undefined,
      cursor: q.get("cursor") || undefined,
      limit: number(q.get("limit"), "limit", 1, 100) ?? 20,
      timeoutMs: timeout ? timeout * 1000 : undefined,
    }));
  });

  app.get("/api/mcp/registry/plan", async (c) => {
    const q = c.env.url.searchParams;
    const name = q.get("name") ?? "";
    if (!name) throw new ApiError(400, "bad_request", '"name" (the registry name) is required');
    return json(await setup.plan({ name, version: q.get("version") || undefined, remote: q.get("remote") === "1" }));
  });

  app.post("/api/mcp/registry/install", async (c) => {
    const body = await readJson(c.req.raw);
    const r = await setup.install({ name: need(body, "name"), version: str(body, "version", false) || undefined, as: str(body, "as", false) || undefined, values: answers(body), remote: flag(body, "remote"), test: body.test !== false });
    return json({ ...r, engine: await reload() });
  });

  app.get("/api/mcp/import", () => json(setup.candidates()));

  app.post("/api/mcp/import", async (c) => {
    const body = await readJson(c.req.raw);
    const ids = body.ids;
    if (!Array.isArray(ids) || !ids.length || ids.some((x) => typeof x !== "string")) throw new ApiError(400, "bad_request", '"ids" must be a non-empty list of ids from GET /api/mcp/import');
    const r = await setup.import(ids as string[], body.test !== false);
    return json({ ...r, engine: await reload() });
  });
}
