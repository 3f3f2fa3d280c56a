// An in-process serve API over the scripted model, for API tests: a throw-away
// home and workspace, token auth, and a JSON caller.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startScriptedOpenAI, type ScriptedServer } from "../../testing/scripted-llm.ts";
import { engineFactoryFromConfig } from "../engine.ts";
import { startServer, type RunningServer } from "../server.ts";
import { cleanup, tempDir } from "./helpers.ts";

export interface ApiRig {
  llm: ScriptedServer;
  server: RunningServer;
  /** The server's $REASONIX_HOME. */
  home: string;
  /** JSON in, status and JSON body out. */
  call(path: string, method: string, body?: unknown): Promise<{ status: number; body: any }>;
  /** JSON in, the raw response out. */
  request(path: string, method: string, body?: unknown): Promise<Response>;
  close(): Promise<void>;
}

/**
 * opts.providerToml: more lines for the scripted provider's entry (e.g. "vision = true\n");
 * opts.configToml: more config after it ("{{LLM}}" becomes the scripted model's URL), e.g. a second provider.
 */
export async function startApiRig(name: string, opts: { providerToml?: string; configToml?: string } = {}): Promise<ApiRig> {
  const token = `${name}-token-0123456789abcdefghijklmn`;
  const dir = tempDir(`rx-${name}-`);
  const llm = await startScriptedOpenAI([]);
  const home = join(dir, "home");
  const workspace = join(dir, "ws");
  mkdirSync(home, { recursive: true, mode: 0o700 });
  mkdirSync(workspace, { recursive: true });
  writeFileSync(join(home, "config.toml"), `default_model = "s"\n\n[[providers]]\nname = "s"\nkind = "openai"\nbase_url = "${llm.url}"\nmodel = "m"\n${opts.providerToml ?? ""}\n${(opts.configToml ?? "").replaceAll("{{LLM}}", llm.url)}`);
  const server = await startServer({ host: "127.0.0.1", port: 0, auth: { mode: "token", token }, workspace, version: "test", defaultModel: "s", engineFactory: await engineFactoryFromConfig(home) });
  const request = (path: string, method: string, body?: unknown) =>
    fetch(`http://${server.addr}${path}`, { method, headers: { authorization: `Bearer ${token}`, "content-type": "application/json" }, body: method === "GET" ? undefined : JSON.stringify(body ?? {}) });
  return {
    llm,
    server,
    home,
    request,
    async call(path, method, body) {
      const r = await request(path, method, body);
      return { status: r.status, body: (await r.json()) as any };
    },
    async close() {
      await server.stop();
      await llm.close();
      cleanup(dir);
    },
  };
}
