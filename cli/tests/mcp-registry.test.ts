// `reasonix mcp browse` and `reasonix mcp install` against an MCP Registry
// fixture on loopback (v0 API): paging, search, a 500, a timeout, the cache
// during an outage, installs of an npm package and of a remote that needs a
// secret (both then started for real), an entry needing a secret that was
// not given (manual setup, nothing written), and no registry request at all
// from `reasonix run`.
import { afterEach, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startEverythingHttp } from "../../core/testing/everything-http.ts";
import { freePort } from "../../core/testing/free-port.ts";
import { npxStandIn, OCI_ENTRY, PYPI_ENTRY, runtimeEntries, sampleEntries, startRegistryFixture, toolStandIn, type RegistryFixture } from "../../core/testing/mcp-registry.ts";
import { startScriptedOpenAI, type ScriptedServer } from "../../core/testing/scripted-llm.ts";
import { hasTmux, quit, ready, startChat } from "./chat-helpers.ts";
import { mainTs, makeCliEnv, runCli, type CliEnv } from "./run-helpers.ts";
import { everythingJs, haveServers, nodeBin, skipWithoutServers } from "./mcp-helpers.ts";

setDefaultTimeout(120_000);

const skip = skipWithoutServers("MCP registry tests");

const everythingVersion = haveServers ? (JSON.parse(readFileSync(join(everythingJs, "../../package.json"), "utf8")) as { version: string }).version : "0";

let llm: ScriptedServer;
let ce: CliEnv;
let reg: RegistryFixture;
const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const npxShim = (workspace: string) => npxStandIn(workspace, everythingJs, nodeBin, everythingVersion);

async function setup(remoteUrl = "http://127.0.0.1:9/mcp") {
  llm = await startScriptedOpenAI([{ text: "ok" }]);
  reg = startRegistryFixture(sampleEntries(remoteUrl, everythingVersion));
  ce = makeCliEnv(llm.url, { extraToml: `\n[mcp]\nstartup_grace_seconds = 60\nregistry_url = ${JSON.stringify(reg.url)}\n` });
  ce.env.XDG_STATE_HOME = join(ce.home, "..", "state");
  ce.env.PATH = `${npxShim(ce.workspace)}:${ce.env.PATH}`;
  cleanups.push(() => llm.close(), () => reg.close(), () => ce.cleanup());
}

describe.skipIf(skip)("reasonix mcp browse / install", () => {
  test("browse pages through a search; --json gives the entries and the next cursor", async () => {
    await setup();
    let r = await runCli(ce, ["mcp", "browse", "filler", "--limit", "2", "--json"]);
    expect(r.code).toBe(0);
    const first = JSON.parse(r.stdout);
    expect(first.servers.map((s: { name: string }) => s.name)).toEqual(["com.example/filler-1", "com.example/filler-2"]);
    expect(first.nextCursor).toBeString();
    expect(first.stale).toBeNull();
    r = await runCli(ce, ["mcp", "browse", "filler", "--limit", "2", "--cursor", first.nextCursor]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("com.example/filler-3");
    expect(r.stdout).not.toContain("com.example/filler-1");
    expect(r.stdout).toContain("--cursor");
    r = await runCli(ce, ["mcp", "browse", "everything"]);
    expect(r.stdout).toContain("io.github.modelcontextprotocol/everything");
    expect(r.stdout).toContain("npm");
    expect(r.stdout).toContain("remote streamable-http");
    expect(reg.requests.some((q) => q.includes("search=filler") && q.includes("limit=2") && q.includes("cursor="))).toBe(true);
  });

  test("a project's reasonix.toml cannot point the registry elsewhere ([mcp] registry_url is a user-config key)", async () => {
    await setup();
    const other = startRegistryFixture(sampleEntries("http://127.0.0.1:9/mcp", everythingVersion));
    cleanups.push(() => other.close());
    writeFileSync(join(ce.workspace, "reasonix.toml"), `[mcp]\nregistry_url = ${JSON.stringify(other.url)}\n`);
    const r = await runCli(ce, ["mcp", "browse", "filler", "--json"]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).servers).toHaveLength(5);
    expect(other.requests).toEqual([]);
    expect(reg.requests.some((q) => q.startsWith("/v0/servers?search=filler"))).toBe(true);
  });

  test("text from the registry reaches the terminal without control characters", async () => {
    await setup();
    reg.entries.push({ server: { name: "com.example/evil\u001b[2J", description: "clears\u001b]0;owned\u0007 the screen", version: "1.0.0\u001b[31m", remotes: [{ type: "sse", url: "https://evil.example/sse" }] } });
    const r = await runCli(ce, ["mcp", "browse", "evil"]);
    expect(r.code).toBe(0);
    expect(r.stdout).not.toContain("\u001b");
    expect(r.stdout).not.toContain("\u0007");
    expect(r.stdout).toContain("clears\\u001b]0;owned\\u0007 the screen");
  });

  test("a 500 and a timeout are reported clearly; during an outage the cached answer is served, marked stale", async () => {
    await setup();
    let r = await runCli(ce, ["mcp", "browse", "boom"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("answered HTTP 500: database unavailable");
    r = await runCli(ce, ["mcp", "browse", "slow", "--timeout", "1"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("did not answer within 1 s");

    r = await runCli(ce, ["mcp", "browse", "filler", "--json"]);
    expect(JSON.parse(r.stdout).stale).toBeNull();
    r = await runCli(ce, ["mcp", "install", "com.example/needs-secret", "--json"]);
    expect(JSON.parse(r.stdout)).toMatchObject({ installed: false, stale: null });
    reg.close();
    // An entry read before: install works from the saved answer, and says so (on stderr, or as stale in --json).
    r = await runCli(ce, ["mcp", "install", "com.example/needs-secret", "--json"]);
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout)).toMatchObject({ installed: false, missing: [{ key: "EXAMPLE_TOKEN" }], stale: { error: expect.stringContaining("cannot reach the MCP Registry") } });
    r = await runCli(ce, ["mcp", "install", "com.example/needs-secret", "--env", "EXAMPLE_TOKEN=t", "--no-test", "--json"]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ installed: true, name: "needs-secret", stale: { fetchedAt: expect.any(String) } });
    r = await runCli(ce, ["mcp", "install", "com.example/needs-secret", "--as", "needs-secret-2", "--env", "EXAMPLE_TOKEN=t", "--no-test"]);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain("(stale)");
    r = await runCli(ce, ["mcp", "browse", "filler", "--json"]);
    expect(r.code).toBe(0);
    const page = JSON.parse(r.stdout);
    expect(page.servers).toHaveLength(5);
    expect(page.stale.error).toContain("cannot reach the MCP Registry");
    r = await runCli(ce, ["mcp", "browse", "filler"]);
    expect(r.stderr).toContain("(stale)");
    // A query never fetched has nothing to fall back on.
    r = await runCli(ce, ["mcp", "browse", "other"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("cannot reach the MCP Registry");
  });

  test("install of an npm entry writes npx -y pkg@version and the server starts", async () => {
    await setup();
    const r = await runCli(ce, ["mcp", "install", "io.github.modelcontextprotocol/everything", "--json"]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out).toMatchObject({ name: "everything", installed: true, source: `npm @modelcontextprotocol/server-everything@${everythingVersion}` });
    expect(out.test).toMatchObject({ ok: true, status: "ready" });
    expect(out.test.tools).toContainEqual({ name: "mcp__everything__echo", raw: "echo", readOnly: true });
    expect(readFileSync(join(ce.workspace, "npx-ran.txt"), "utf8")).toBe(`-y @modelcontextprotocol/server-everything@${everythingVersion} stdio\n`);
    const get = JSON.parse((await runCli(ce, ["mcp", "get", "everything", "--json"])).stdout);
    expect(get).toMatchObject({ scope: "user", type: "stdio", command: "npx", args: ["-y", `@modelcontextprotocol/server-everything@${everythingVersion}`, "stdio"], sandbox: true });
    const again = await runCli(ce, ["mcp", "install", "io.github.modelcontextprotocol/everything"]);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain("already exists");
  });

  test("install of a pypi entry writes uvx pkg==version, and the server starts at once with its tools, prompts and resources", async () => {
    await setup();
    reg.entries.push(...runtimeEntries());
    const want = `${PYPI_ENTRY.identifier}==${PYPI_ENTRY.version} stdio`;
    // The stand-in uvx also checks that the entry's default reached the server's environment.
    toolStandIn(ce.workspace, { tool: "uvx", want, everythingJs, nodeBin, requireEnv: { LOG_LEVEL: "info" } });
    const r = await runCli(ce, ["mcp", "install", PYPI_ENTRY.name]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`installed ${PYPI_ENTRY.name} ${PYPI_ENTRY.version} as MCP server everything-py`);
    expect(r.stdout).toContain(`uvx ${want}`);
    expect(r.stdout).toMatch(/^ok everything-py/m);
    expect(r.stdout).toContain("mcp__everything-py__echo");
    expect(r.stdout).toMatch(/^prompts \(\d+\): .*\/mcp__everything-py__/m);
    expect(r.stdout).toMatch(/^resources \(\d+\): /m);
    expect(readFileSync(join(ce.workspace, "uvx-ran.txt"), "utf8")).toBe(`${want}\n`);
    const get = JSON.parse((await runCli(ce, ["mcp", "get", "everything-py", "--json"])).stdout);
    expect(get).toMatchObject({ scope: "user", type: "stdio", command: "uvx", args: [`${PYPI_ENTRY.identifier}==${PYPI_ENTRY.version}`, "stdio"], env: { LOG_LEVEL: "info" }, sandbox: true });
  });

  test("install of an oci entry writes docker run -i --rm … image:tag; its secret reaches the container's environment from .env and the server starts", async () => {
    await setup();
    reg.entries.push(...runtimeEntries());
    const SECRET = "oci-secret-5150";
    const want = `run -i --rm --pull=never -e OCI_TOKEN ${OCI_ENTRY.identifier} stdio`;
    toolStandIn(ce.workspace, { tool: "docker", want, everythingJs, nodeBin, requireEnv: { OCI_TOKEN: SECRET } });
    const r = await runCli(ce, ["mcp", "install", OCI_ENTRY.name, "--env", `OCI_TOKEN=${SECRET}`, "--json"]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out).toMatchObject({ name: "everything-oci", installed: true, source: `oci ${OCI_ENTRY.identifier}`, secrets: ["MCP_EVERYTHING_OCI_OCI_TOKEN"] });
    expect(out.test).toMatchObject({ ok: true, status: "ready" });
    expect(out.test.tools).toContainEqual({ name: "mcp__everything-oci__echo", raw: "echo", readOnly: true });
    expect(out.test.prompts.length).toBeGreaterThan(0);
    expect(out.test.resources.length).toBeGreaterThan(0);
    expect(readFileSync(join(ce.workspace, "docker-ran.txt"), "utf8")).toBe(`${want}\n`);
    const config = readFileSync(join(ce.home, "config.toml"), "utf8");
    expect(config).not.toContain(SECRET);
    expect(config).toContain('env = { OCI_TOKEN = "${MCP_EVERYTHING_OCI_OCI_TOKEN}" }');
    expect(readFileSync(join(ce.home, ".env"), "utf8")).toContain(`MCP_EVERYTHING_OCI_OCI_TOKEN=${SECRET}`);
    expect(statSync(join(ce.home, ".env")).mode & 0o777).toBe(0o600);
  });

  test("install of a remote with a secret header: the secret goes to .env (0600), the config references it, the server connects", async () => {
    const port = await freePort();
    const srv = await startEverythingHttp(nodeBin, everythingJs, "streamableHttp", port);
    cleanups.push(srv.stop);
    await setup(`http://127.0.0.1:${port}/mcp`);
    const r = await runCli(ce, ["mcp", "install", "com.example/remote-everything", "--header", "X-Api-Key=sekret-123"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("installed com.example/remote-everything");
    expect(r.stdout).toMatch(/^ok remote-everything/m);
    expect(r.stdout).toContain("mcp__remote-everything__echo");
    const dotenv = join(ce.home, ".env");
    expect(readFileSync(dotenv, "utf8")).toContain("MCP_REMOTE_EVERYTHING_X_API_KEY=sekret-123");
    expect(statSync(dotenv).mode & 0o777).toBe(0o600);
    const config = readFileSync(join(ce.home, "config.toml"), "utf8");
    expect(config).not.toContain("sekret-123");
    expect(config).toContain('headers = { X-Api-Key = "${MCP_REMOTE_EVERYTHING_X_API_KEY}" }');
  });

  test("an entry needing a secret that was not given is shown as manual setup and nothing is written", async () => {
    await setup();
    const before = readFileSync(join(ce.home, "config.toml"), "utf8");
    let r = await runCli(ce, ["mcp", "install", "com.example/needs-secret"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("was not installed");
    expect(r.stderr).toContain("--env EXAMPLE_TOKEN=");
    expect(readFileSync(join(ce.home, "config.toml"), "utf8")).toBe(before);
    expect(existsSync(join(ce.home, ".env")) && readFileSync(join(ce.home, ".env"), "utf8").includes("EXAMPLE_TOKEN")).toBe(false);
    r = await runCli(ce, ["mcp", "install", "com.example/needs-secret", "--json"]);
    expect(JSON.parse(r.stdout)).toMatchObject({ installed: false, missing: [{ key: "EXAMPLE_TOKEN", kind: "env", required: true, secret: true }] });

    r = await runCli(ce, ["mcp", "install", "com.example/broken-entry"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("the answer.server.packages[0].identifier is missing");
    r = await runCli(ce, ["mcp", "install", "com.example/needs-secret", "--as", "bad name", "--env", "EXAMPLE_TOKEN=t"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('"bad name" cannot be an MCP server name');
    expect(existsSync(join(ce.home, ".env")) && readFileSync(join(ce.home, ".env"), "utf8").includes("MCP_")).toBe(false);
    r = await runCli(ce, ["mcp", "install", "io.github.modelcontextprotocol/everything@9.9.9"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('has no server "io.github.modelcontextprotocol/everything" at version 9.9.9');
    expect(reg.requests).toContain("/v0/servers/io.github.modelcontextprotocol%2Feverything/versions/9.9.9");
    r = await runCli(ce, ["mcp", "install", "com.example/nope"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('has no server "com.example/nope"');
    expect(readFileSync(join(ce.home, "config.toml"), "utf8")).toBe(before);
  });

  test.skipIf(!hasTmux())("on a terminal, install asks for the required secret without echoing it, then installs and starts the server", async () => {
    await setup();
    // The pane's shell may reset PATH (a login profile): give the program the one with the npx stand-in.
    const p = startChat(ce, ["mcp", "install", "com.example/needs-secret"], { env: { NO_COLOR: "1" }, cols: 200, bin: ["env", `PATH=${ce.env.PATH}`, process.execPath, mainTs] });
    cleanups.push(() => p.kill());
    await p.waitFor("EXAMPLE_TOKEN (API token):");
    p.send("tty-secret-77");
    const done = await p.waitFor(/\[exit \d+\]/, { all: true });
    expect(done).toContain("[exit 0]");
    expect(done).not.toContain("tty-secret-77");
    expect(done).toContain("installed com.example/needs-secret 2.0.0 as MCP server needs-secret");
    expect(done).toMatch(/^ok needs-secret/m);
    expect(readFileSync(join(ce.home, ".env"), "utf8")).toContain("MCP_NEEDS_SECRET_EXAMPLE_TOKEN=tty-secret-77");
    expect(existsSync(join(ce.workspace, "npx-ran.txt"))).toBe(true);
    expect(readFileSync(join(ce.home, "config.toml"), "utf8")).toContain('env = { EXAMPLE_TOKEN = "${MCP_NEEDS_SECRET_EXAMPLE_TOKEN}" }');
  });

  test("a remote URL's {variables}: --var fills them in; without it the manual setup names --var", async () => {
    await setup();
    reg.entries.push({ server: { name: "com.example/tenant-remote", description: "Per-tenant endpoint", version: "1.0.0", remotes: [{ type: "sse", url: "https://{tenant}.tenant.example/sse", variables: { tenant: { description: "your tenant id", isRequired: true } } }] } });
    let r = await runCli(ce, ["mcp", "install", "com.example/tenant-remote"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("--var tenant=…");
    r = await runCli(ce, ["mcp", "install", "com.example/tenant-remote", "--var", "tenant=acme-3", "--no-test", "--json"]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ installed: true, name: "tenant-remote", source: "remote sse https://{tenant}.tenant.example/sse" });
    expect(readFileSync(join(ce.home, "config.toml"), "utf8")).toContain('url = "https://acme-3.tenant.example/sse"');
  });

  test("reasonix run and mcp list make no registry request", async () => {
    await setup();
    let r = await runCli(ce, ["run", "hello"]);
    expect(r.code).toBe(0);
    r = await runCli(ce, ["mcp", "list"]);
    expect(reg.requests).toEqual([]);
  });

  test.skipIf(!hasTmux())("the terminal chat starts, with an installed server running, and makes no registry request", async () => {
    await setup();
    expect((await runCli(ce, ["mcp", "install", "io.github.modelcontextprotocol/everything", "--no-test"])).code).toBe(0);
    reg.requests.length = 0;
    const p = startChat(ce, ["chat"], { env: { NO_COLOR: "1" }, cols: 200, bin: ["env", `PATH=${ce.env.PATH}`, process.execPath, mainTs] });
    cleanups.push(() => p.kill());
    await ready(p);
    // The server starts in the background: ask /mcp again (bounded) until the last answer says ready.
    let state = "";
    for (let i = 0; i < 30 && state !== "ready"; i++) {
      if (i) await Bun.sleep(500);
      p.send("/mcp");
      const s = await p.waitFor(/everything \[stdio, user\] (ready|starting|failed|idle)/, { timeoutMs: 10_000 });
      state = [...s.matchAll(/everything \[stdio, user\] (\w+)/g)].at(-1)?.[1] ?? "";
    }
    expect(state).toBe("ready");
    expect(readFileSync(join(ce.workspace, "npx-ran.txt"), "utf8")).toContain("@modelcontextprotocol/server-everything@");
    await quit(p);
    expect(reg.requests).toEqual([]);
  });
});
