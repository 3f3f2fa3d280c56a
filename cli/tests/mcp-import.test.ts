// `reasonix mcp import`: servers found in the config files of Claude Code,
// Claude Desktop, Cursor, VS Code, Codex, Gemini CLI and Windsurf (fixture
// files in each agent's documented format, under a throw-away HOME), listed,
// imported by name / --all / the terminal picker, inline secrets moved to
// .env, and an imported server started for real in the sandbox.
import { afterEach, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { startEverythingHttp } from "../../core/testing/everything-http.ts";
import { freePort } from "../../core/testing/free-port.ts";
import { bundleEverything } from "../../core/testing/mcp-registry.ts";
import { startScriptedOpenAI, type ScriptedServer } from "../../core/testing/scripted-llm.ts";
import { hasTmux, startChat } from "./chat-helpers.ts";
import { makeCliEnv, runCli, type CliEnv } from "./run-helpers.ts";
import { everythingJs, graceToml, haveServers, nodeBin, skipWithoutServers } from "./mcp-helpers.ts";

setDefaultTimeout(120_000);

const skip = skipWithoutServers("MCP import tests");

let llm: ScriptedServer;
let ce: CliEnv;
const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const put = (file: string, text: string) => {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text);
};

/** Each agent's file, as its documentation shows it. */
function writeAgentFiles(home: string, ws: string) {
  const everything = { command: nodeBin, args: [everythingJs, "stdio"] };
  put(
    join(home, ".claude.json"),
    JSON.stringify({
      numStartups: 12,
      mcpServers: { everything: { type: "stdio", ...everything, env: { EVERYTHING_API_KEY: "sk-inline-123", LOG_LEVEL: "warn" } } },
      projects: { "/home/someone/proj": { allowedTools: [], mcpServers: { "proj-remote": { type: "http", url: "https://proj.example/mcp", headers: { Authorization: "Bearer proj-secret" } } } } },
    }),
  );
  put(join(ws, ".mcp.json"), JSON.stringify({ mcpServers: { "ws-fs": { command: "npx", args: ["-y", "@modelcontextprotocol/server-filesystem", "."] } } }));
  put(join(home, ".config", "Claude", "claude_desktop_config.json"), JSON.stringify({ mcpServers: { "desktop-everything": everything } }));
  // The same server as Claude Code's (listed once) and a remote one.
  put(join(home, ".cursor", "mcp.json"), JSON.stringify({ mcpServers: { everything: { ...everything }, "cursor-remote": { url: "http://localhost:3000/mcp", headers: { API_KEY: "cursor-key" } } } }));
  put(
    join(ws, ".vscode", "mcp.json"),
    `{
  // VS Code: "servers", inputs prompted by the editor
  "inputs": [{ "type": "promptString", "id": "gh-token", "description": "GitHub token", "password": true }],
  "servers": {
    "github": { "type": "http", "url": "https://api.githubcopilot.com/mcp/", "headers": { "Authorization": "Bearer \${input:gh-token}" } },
    "vs-stdio": { "type": "stdio", "command": "node", "args": ["\${workspaceFolder}/server.js"], "env": { "TOKEN": "\${env:MY_TOKEN}" } },
  },
}`,
  );
  put(join(home, ".config", "Code", "User", "settings.json"), `{\n  "editor.fontSize": 14, // mine\n  "mcp": { "servers": { "vs-user": { "command": "uvx", "args": ["mcp-server-fetch"] } } }\n}\n`);
  put(
    join(home, ".codex", "config.toml"),
    `model = "o4-mini"\n\n[mcp_servers.codex-everything]\ncommand = ${JSON.stringify(nodeBin)}\nargs = [${JSON.stringify(everythingJs)}, "stdio"]\nenv = { "GREETING" = "hi" }\n\n[mcp_servers.codex-http]\nurl = "https://codex.example/mcp"\nbearer_token_env_var = "CODEX_TOKEN"\n`,
  );
  put(join(home, ".gemini", "settings.json"), JSON.stringify({ theme: "Default", mcpServers: { "gemini-sse": { url: "http://localhost:8080/sse" }, "gemini-http": { httpUrl: "http://localhost:8080/mcp", headers: { Authorization: "Bearer gem-secret" } } } }));
  put(join(home, ".codeium", "windsurf", "mcp_config.json"), JSON.stringify({ mcpServers: { "windsurf-remote": { serverUrl: "https://ws.example/mcp" } } }));
}

async function setup() {
  llm = await startScriptedOpenAI([{ text: "ok" }]);
  ce = makeCliEnv(llm.url, { extraToml: graceToml });
  const home = join(ce.home, "..", "user");
  Object.assign(ce.env, { HOME: home, XDG_STATE_HOME: join(ce.home, "..", "state"), XDG_CONFIG_HOME: join(home, ".config") });
  delete ce.env.CODEX_HOME;
  writeAgentFiles(home, ce.workspace);
  cleanups.push(() => llm.close(), () => ce.cleanup());
  return home;
}

type Row = { name: string; type: string; target: string; agent: string; file: string; secrets: string[]; skip?: string };

describe.skipIf(skip)("reasonix mcp import", () => {
  test("lists what each agent declares, with transport, target and where; a VS Code input prompt cannot be imported", async () => {
    const home = await setup();
    const r = await runCli(ce, ["mcp", "import", "--json"]);
    expect(r.code).toBe(0);
    const rows: Row[] = JSON.parse(r.stdout).servers;
    const by = Object.fromEntries(rows.map((x) => [x.name, x]));
    expect(Object.keys(by).sort()).toEqual(
      ["codex-everything", "codex-http", "cursor-remote", "desktop-everything", "everything", "gemini-http", "gemini-sse", "github", "proj-remote", "vs-stdio", "vs-user", "windsurf-remote", "ws-fs"].sort(),
    );
    expect(rows.filter((x) => x.name === "everything")).toHaveLength(1);
    expect(by.everything).toMatchObject({ type: "stdio", agent: "Claude Code", file: join(home, ".claude.json"), secrets: ["MCP_EVERYTHING_EVERYTHING_API_KEY"] });
    expect(by["proj-remote"]).toMatchObject({ type: "http", target: "https://proj.example/mcp", file: `${join(home, ".claude.json")} (project /home/someone/proj)` });
    expect(by["ws-fs"]).toMatchObject({ agent: "Claude Code", file: join(ce.workspace, ".mcp.json") });
    expect(by["desktop-everything"]).toMatchObject({ agent: "Claude Desktop" });
    expect(by["cursor-remote"]).toMatchObject({ agent: "Cursor", type: "http", secrets: ["MCP_CURSOR_REMOTE_API_KEY"] });
    expect(by.github.skip).toContain("${input:gh-token}");
    expect(by["vs-stdio"]).toMatchObject({ agent: "VS Code", target: "node ./server.js" });
    expect(by["vs-user"]).toMatchObject({ agent: "VS Code", file: join(home, ".config", "Code", "User", "settings.json"), target: "uvx mcp-server-fetch" });
    expect(by["codex-http"]).toMatchObject({ agent: "Codex", type: "http", secrets: [] });
    expect(by["gemini-sse"]).toMatchObject({ agent: "Gemini CLI", type: "sse" });
    expect(by["gemini-http"]).toMatchObject({ type: "http", secrets: ["MCP_GEMINI_HTTP_AUTHORIZATION"] });
    expect(by["windsurf-remote"]).toMatchObject({ agent: "Windsurf", type: "http", target: "https://ws.example/mcp" });

    // A workspace file's text is shown with its control characters escaped.
    put(join(ce.workspace, ".cursor", "mcp.json"), JSON.stringify({ mcpServers: { "esc\u001b[2J": { command: "echo\u001b]0;owned\u0007" } } }));
    const shown = await runCli(ce, ["mcp", "import", "--list"]);
    expect(shown.stdout).not.toContain("\u001b");
    expect(shown.stdout).toContain("echo\\u001b]0;owned\\u0007");

    // Without names, --all or a terminal: a list, nothing written.
    const before = readFileSync(join(ce.home, "config.toml"), "utf8");
    const plain = await runCli(ce, ["mcp", "import"]);
    expect(plain.code).toBe(0);
    expect(plain.stdout).toContain("windsurf-remote");
    expect(readFileSync(join(ce.home, "config.toml"), "utf8")).toBe(before);
  });

  test("importing by name moves inline secrets to .env; the imported server starts in the sandbox like an added one", async () => {
    await setup();
    let r = await runCli(ce, ["mcp", "import", "everything", "codex-http", "--json"]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).imported.map((x: Row) => x.name)).toEqual(["everything", "codex-http"]);
    const config = readFileSync(join(ce.home, "config.toml"), "utf8");
    expect(config).not.toContain("sk-inline-123");
    expect(config).toContain('EVERYTHING_API_KEY = "${MCP_EVERYTHING_EVERYTHING_API_KEY}"');
    expect(config).toContain('Authorization = "Bearer ${CODEX_TOKEN}"');
    const dotenv = join(ce.home, ".env");
    expect(readFileSync(dotenv, "utf8")).toContain("MCP_EVERYTHING_EVERYTHING_API_KEY=sk-inline-123");
    expect(statSync(dotenv).mode & 0o777).toBe(0o600);

    r = await runCli(ce, ["mcp", "list", "--json"]);
    expect(JSON.parse(r.stdout).servers).toContainEqual(expect.objectContaining({ name: "everything", scope: "user", state: "configured", sandbox: true }));
    r = await runCli(ce, ["mcp", "test", "everything", "--json"]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ ok: true, status: "ready", backend: "bwrap" });

    r = await runCli(ce, ["mcp", "import", "everything"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("already in your config");
    r = await runCli(ce, ["mcp", "import", "github"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("${input:gh-token}");
  });

  test("--all imports every importable server of the user's agents, never the workspace's files", async () => {
    await setup();
    let r = await runCli(ce, ["mcp", "import", "--all"]);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain("not imported by --all (declared by this workspace; name them to import): ws-fs, vs-stdio");
    const names = [...r.stdout.matchAll(/^imported (\S+)/gm)].map((m) => m[1]).sort();
    expect(names).toEqual(["codex-everything", "codex-http", "cursor-remote", "desktop-everything", "everything", "gemini-http", "gemini-sse", "proj-remote", "vs-user", "windsurf-remote"]);
    r = await runCli(ce, ["mcp", "import", "ws-fs", "--json"]);
    expect(r.code).toBe(0);
    names.push("ws-fs");
    names.sort();
    const list = JSON.parse((await runCli(ce, ["mcp", "list", "--json"])).stdout);
    expect(list.servers.map((s: { name: string }) => s.name).sort()).toEqual(names);
    // The workspace's .mcp.json still declares ws-fs: that declaration wins by name, as before the import.
    const wsFs = list.servers.find((s: { name: string }) => s.name === "ws-fs");
    expect(wsFs).toMatchObject({ scope: "mcp.json", state: "blocked", shadows: [expect.objectContaining({ scope: "user" })] });
  });

  test.skipIf(!hasTmux())("the terminal picker: arrows, Space, Enter import the chosen servers", async () => {
    await setup();
    const p = startChat(ce, ["mcp", "import"], { env: { NO_COLOR: "1" }, cols: 200 });
    cleanups.push(() => p.kill());
    await p.waitFor("0 selected");
    p.keys("Space");
    await p.waitFor("1 selected");
    // In one send: keys that arrive in one read must each count.
    p.keys("Down", "Down", "Space");
    await p.waitFor("2 selected");
    p.keys("Enter");
    const done = await p.waitFor(/\[exit \d+\]/, { all: true });
    expect(done).toContain("[exit 0]");
    // The list's order: Claude Code's user servers, its projects, the workspace's .mcp.json, …
    expect([...done.matchAll(/^imported (\S+)/gm)].map((m) => m[1])).toEqual(["everything", "ws-fs"]);
    const config = readFileSync(join(ce.home, "config.toml"), "utf8");
    expect(config).toContain('name = "everything"');
    expect(config).toContain('name = "ws-fs"');
    expect(config).not.toContain('name = "proj-remote"');
    expect(readFileSync(join(ce.home, ".env"), "utf8")).toContain("MCP_EVERYTHING_EVERYTHING_API_KEY=sk-inline-123");
  });

  test("a server from each agent's file, in each transport its format has, imports and connects (stdio in the sandbox, Streamable HTTP, SSE)", async () => {
    const home = await setup();
    const [httpPort, ssePort] = [await freePort(), await freePort()];
    const http = await startEverythingHttp(nodeBin, everythingJs, "streamableHttp", httpPort);
    cleanups.push(http.stop);
    const sse = await startEverythingHttp(nodeBin, everythingJs, "sse", ssePort);
    cleanups.push(sse.stop);
    const httpUrl = `http://127.0.0.1:${httpPort}/mcp`;
    const sseUrl = `http://127.0.0.1:${ssePort}/sse`;
    // The server as a file the sandbox shows (the workspace), for the stdio entries.
    const bundle = bundleEverything(join(ce.workspace, ".shim-bin"), everythingJs);
    const stdio = { command: nodeBin, args: [bundle, "stdio"] };
    // Replace the listing fixtures with working servers only; a project folder holds the workspace files.
    const proj = join(ce.workspace, "..", "proj");
    put(
      join(home, ".claude.json"),
      JSON.stringify({
        mcpServers: { "cc-stdio": { type: "stdio", ...stdio, env: { EVERYTHING_API_KEY: "sk-cc-1" } } },
        projects: { [proj]: { mcpServers: { "cc-project-http": { type: "http", url: httpUrl, headers: { Authorization: "Bearer cc-proj-2" } } } } },
      }),
    );
    put(join(proj, ".mcp.json"), JSON.stringify({ mcpServers: { "cc-mcpjson-sse": { type: "sse", url: sseUrl } } }));
    put(join(home, ".config", "Claude", "claude_desktop_config.json"), JSON.stringify({ mcpServers: { "desktop-stdio": stdio } }));
    put(join(home, ".cursor", "mcp.json"), JSON.stringify({ mcpServers: { "cursor-http": { url: httpUrl, headers: { API_KEY: "cursor-3" } } } }));
    put(join(proj, ".cursor", "mcp.json"), JSON.stringify({ mcpServers: { "cursor-project-stdio": stdio } }));
    // ${workspaceFolder} becomes "." — the folder the server runs in (the workspace where the bundle is).
    put(join(proj, ".vscode", "mcp.json"), `{\n  // the workspace's servers\n  "servers": { "vs-workspace": { "type": "stdio", "command": ${JSON.stringify(nodeBin)}, "args": ["\${workspaceFolder}/.shim-bin/everything/dist/everything.mjs", "stdio"] } },\n}\n`);
    put(join(home, ".config", "Code", "User", "mcp.json"), `{ "servers": { "vs-user-sse": { "type": "sse", "url": ${JSON.stringify(sseUrl)} } } }`);
    put(join(home, ".config", "Code", "User", "settings.json"), `{\n  "editor.fontSize": 14,\n  "mcp": { "servers": { "vs-settings-http": { "type": "http", "url": ${JSON.stringify(httpUrl)} } } },\n}\n`);
    put(
      join(home, ".codex", "config.toml"),
      `[mcp_servers.codex-stdio]\ncommand = ${JSON.stringify(nodeBin)}\nargs = [${JSON.stringify(bundle)}, "stdio"]\nenv = { "GREETING" = "hi" }\n\n[mcp_servers.codex-http]\nurl = ${JSON.stringify(httpUrl)}\nbearer_token_env_var = "CODEX_TOKEN"\n`,
    );
    ce.env.CODEX_TOKEN = "codex-4";
    put(join(home, ".gemini", "settings.json"), JSON.stringify({ mcpServers: { "gemini-http": { httpUrl, headers: { Authorization: "Bearer gem-5" } }, "gemini-sse": { url: sseUrl }, "gemini-stdio": stdio } }));
    put(join(home, ".codeium", "windsurf", "mcp_config.json"), JSON.stringify({ mcpServers: { "windsurf-http": { serverUrl: httpUrl }, "windsurf-stdio": stdio } }));

    type Imported = Row & { imported: boolean; test: { ok: boolean; status: string; error?: string; backend?: string; tools: { raw: string }[] } };
    const check = (list: Imported[]) => {
      for (const x of list) {
        expect({ name: x.name, ok: x.test.ok, error: x.test.error }).toEqual({ name: x.name, ok: true, error: undefined });
        expect(x.test.tools.map((t) => t.raw)).toContain("echo");
        if (x.type === "stdio") expect(x.test.backend).toBe("bwrap");
      }
      return list.map((x) => [x.agent, x.name, x.type]);
    };
    let r = await runCli(ce, ["mcp", "import", "--all", "--test", "--json"]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(check(JSON.parse(r.stdout).imported).sort()).toEqual(
      [
        ["Claude Code", "cc-stdio", "stdio"],
        ["Claude Code", "cc-project-http", "http"],
        ["Claude Desktop", "desktop-stdio", "stdio"],
        ["Cursor", "cursor-http", "http"],
        ["VS Code", "vs-user-sse", "sse"],
        ["VS Code", "vs-settings-http", "http"],
        ["Codex", "codex-stdio", "stdio"],
        ["Codex", "codex-http", "http"],
        ["Gemini CLI", "gemini-http", "http"],
        ["Gemini CLI", "gemini-sse", "sse"],
        ["Gemini CLI", "gemini-stdio", "stdio"],
        ["Windsurf", "windsurf-http", "http"],
        ["Windsurf", "windsurf-stdio", "stdio"],
      ].sort(),
    );
    // The project's own files, named (run from the workspace, whose config they join).
    r = await runCli(ce, ["mcp", "import", "--dir", proj, "cc-mcpjson-sse", "cursor-project-stdio", "vs-workspace", "--test", "--json"]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(check(JSON.parse(r.stdout).imported)).toEqual([
      ["Claude Code", "cc-mcpjson-sse", "sse"],
      ["Cursor", "cursor-project-stdio", "stdio"],
      ["VS Code", "vs-workspace", "stdio"],
    ]);
    // The inline secrets are in .env (0600), not in the config.
    const config = readFileSync(join(ce.home, "config.toml"), "utf8");
    const dotenv = readFileSync(join(ce.home, ".env"), "utf8");
    for (const secret of ["sk-cc-1", "cc-proj-2", "cursor-3", "gem-5"]) {
      expect(config).not.toContain(secret);
      expect(dotenv).toContain(secret);
    }
    expect(statSync(join(ce.home, ".env")).mode & 0o777).toBe(0o600);
    expect(config).toContain('url = "http://127.0.0.1:');
    expect(config).toContain('Authorization = "Bearer ${CODEX_TOKEN}"');
  });
});
