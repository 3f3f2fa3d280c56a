// GET /api/commands and GET /api/complete: the web UI sees the same catalog
// (custom commands, skills, shadowing, untrusted entries) and @-completion as
// the other front ends, behind the same authentication.
import { afterAll, expect, test } from "bun:test";
import { mkdirSync, realpathSync } from "node:fs";
import { join } from "node:path";
import { startServer, type RunningServer } from "../server.ts";
import { cleanup, tempDir } from "./helpers.ts";
import { put } from "../../commands/tests/helpers.ts";

const TOKEN = "commands-token-0123456789abcdefgh";
const dirs: string[] = [];
const servers: RunningServer[] = [];
afterAll(async () => {
  for (const s of servers) await s.stop();
  for (const d of dirs) cleanup(d);
});

test("the catalog lists commands and skills with their source, shadowing and untrusted project files; completion lists one level", async () => {
  const dir = realpathSync(tempDir("rx-cmd-api-"));
  dirs.push(dir);
  const home = join(dir, "home");
  const ws = join(dir, "ws");
  put(join(home, "config.toml"), "");
  put(join(home, "commands/review.md"), "---\ndescription: review code\nargument-hint: <area>\n---\nReview $1\n");
  put(join(home, "commands/init.md"), "My init\n");
  put(join(ws, ".reasonix/commands/ship.md"), "Ship\n");
  put(join(ws, "src/a.ts"), "a\n");
  put(join(ws, "build/out.js"), "x\n");
  put(join(ws, ".gitignore"), "build/\n");
  mkdirSync(join(ws, ".git")); // .gitignore counts inside a repository, as in git and ripgrep
  const server = await startServer({ host: "127.0.0.1", port: 0, auth: { mode: "token", token: TOKEN }, workspace: ws, version: "test", home });
  servers.push(server);
  const get = (path: string, auth = true) => fetch(`${server.url}${path}`, { headers: auth ? { authorization: `Bearer ${TOKEN}` } : {} });

  expect((await get("/api/commands", false)).status).toBe(401);
  const cat = (await (await get("/api/commands")).json()) as any;
  const names = cat.commands.map((c: any) => c.name);
  expect(names).toEqual(expect.arrayContaining(["review", "init", "reasonix:init", "explore", "test", "reasonix-guide", "docs"]));
  expect(cat.commands.find((c: any) => c.name === "review")).toEqual({ name: "review", description: "review code", argumentHint: "<area>", kind: "command", scope: "user", source: join(home, "commands/review.md") });
  expect(cat.shadowed).toEqual([expect.objectContaining({ name: "init", scope: "builtin", by: join(home, "commands/init.md"), reachableAs: "reasonix:init" })]);
  expect(cat.notLoaded).toEqual([expect.objectContaining({ name: "ship", scope: "project", reason: "not loaded: workspace not trusted (reasonix trust)" })]);

  const top = (await (await get("/api/complete?prefix=@")).json()) as any;
  expect(top.items.map((i: any) => i.value)).toEqual(["@src/"]);
  const src = (await (await get(`/api/complete?prefix=${encodeURIComponent("@src/")}`)).json()) as any;
  expect(src.items).toEqual([{ value: "@src/a.ts", label: "a.ts", dir: false }]);
});
