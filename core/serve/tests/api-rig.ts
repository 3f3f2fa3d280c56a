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
  /** JSON in, status and JSON body out. */
  call(path: string, method: string, body?: unknown): Promise<{ status: number; body: any }>;
  close(): Promise<void>;
}

export async function startApiRig(name: string): Promise<ApiRig> {
  const token = `${name}-token-0123456789abcdefghijklmn`;
  const dir = tempDir(`rx-${name}-`);
  const llm = await startScriptedOpenAI([]);
  const home = join(dir, "home");
  const workspace = join(dir, "ws");
  mkdirSync(home, { recursive: true, mode: 0o700 });
  mkdirSync(workspace, { recursive: true });
  writeFileSync(join(home, "config.toml"), `default_model = "s"\n\n[[providers]]\nname = "s"\nkind = "openai"\nbase_url = "${llm.url}"\nmodel = "m"\n`);
  const server = await startServer({ host: "127.0.0.1", port: 0, auth: { mode: "token", token }, workspace, version: "test", defaultModel: "s", engineFactory: await engineFactoryFromConfig(home) });
  return {
    llm,
    server,
    async call(path, method, body) {
      const r = await fetch(`http://${server.addr}${path}`, { method, headers: { authorization: `Bearer ${token}`, "content-type": "application/json" }, body: method === "GET" ? undefined : JSON.stringify(body ?? {}) });
      return { status: r.status, body: (await r.json()) as any };
    },
    async close() {
      await server.stop();
      await llm.close();
      cleanup(dir);
    },
  };
}
