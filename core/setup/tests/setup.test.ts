// core/setup: user-config [[providers]] edits, the connection test against
// real loopback HTTP servers, and the wizard driven by a scripted IO.
import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse } from "smol-toml";
import { startScriptedOpenAI, type ScriptedServer } from "../../testing/scripted-llm.ts";
import { appendArrayTable, findArrayTables, removeArrayTable } from "../../config/array-tables.ts";
import { testConnection } from "../connection.ts";
import { addProvider, needsSetup, providerStatuses, removeProvider, setDefaultProvider, storeKey, userProviders } from "../providers.ts";
import { runSetupWizard, type SetupIO } from "../wizard.ts";

const roots: string[] = [];
const servers: { close(): unknown }[] = [];
afterAll(async () => {
  for (const s of servers) await s.close();
  for (const r of roots) rmSync(r, { recursive: true, force: true });
});
const freshHome = () => {
  const r = mkdtempSync(join(tmpdir(), "rx-setup-"));
  roots.push(r);
  return r;
};

/** A loopback OpenAI-style endpoint that wants `Authorization: Bearer good` on /v1/models. */
function keyCheckingServer(): { url: string; close(): void } {
  const srv = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(req) {
      if (new URL(req.url).pathname !== "/v1/models") return new Response("{}", { status: 404 });
      if (req.headers.get("authorization") !== "Bearer good") {
        return Response.json({ error: { message: "Incorrect API key provided: ba**", type: "invalid_request_error" } }, { status: 401 });
      }
      return Response.json({ object: "list", data: [{ id: "m-small" }, { id: "m-large" }] });
    },
  });
  const s = { url: `http://127.0.0.1:${srv.port}/v1`, close: () => srv.stop(true) };
  servers.push(s);
  return s;
}

describe("[[providers]] in the user config", () => {
  test("add keeps comments and other tables, sets default_model when none is set, and re-reads", () => {
    const home = freshHome();
    const file = join(home, "config.toml");
    writeFileSync(file, "# my settings\n[sandbox]\nnetwork = true # on purpose\n", { mode: 0o640 });
    expect(needsSetup(home)).toBe(true);
    const r = addProvider({ name: "ds", kind: "openai", base_url: "https://api.deepseek.com", model: "deepseek-chat", api_key_env: "DEEPSEEK_API_KEY" }, { home });
    expect(r).toEqual({ path: file, isDefault: true });
    const text = readFileSync(file, "utf8");
    expect(text).toContain("# my settings\n");
    expect(text).toContain("network = true # on purpose");
    expect(statSync(file).mode & 0o777).toBe(0o640);
    const data = parse(text) as any;
    expect(data.default_model).toBe("ds");
    expect(data.providers).toEqual([{ name: "ds", kind: "openai", base_url: "https://api.deepseek.com", model: "deepseek-chat", api_key_env: "DEEPSEEK_API_KEY" }]);
    expect(needsSetup(home)).toBe(false);

    // A second entry does not steal the default unless asked.
    expect(addProvider({ name: "local", kind: "openai", base_url: "http://127.0.0.1:11434/v1", model: "qwen3" }, { home }).isDefault).toBe(false);
    expect(() => addProvider({ name: "local", kind: "openai", base_url: "http://x/v1", model: "m" }, { home })).toThrow(`a provider named "local" already exists in ${file}`);
    expect(() => addProvider({ name: "bad name", kind: "openai", base_url: "http://x/v1", model: "m" }, { home })).toThrow(/provider name "bad name"/);
    expect(() => addProvider({ name: "u", kind: "openai", base_url: "ftp://x", model: "m" }, { home })).toThrow(/must be http/);
    expect(() => addProvider({ name: "k", kind: "gemini", base_url: "http://x", model: "m" }, { home })).toThrow(/--kind "gemini"/);
    expect(providerStatuses(home).providers.map((p) => [p.name, p.isDefault, p.hasKey])).toEqual([["ds", true, false], ["local", false, true]]);

    setDefaultProvider("local", home);
    expect(userProviders(home).defaultModel).toBe("local");
    expect(() => setDefaultProvider("nope", home)).toThrow(`no provider named "nope" in ${file}`);

    // Removing the default hands it to what is left; removing the last drops default_model.
    expect(removeProvider("local", home).newDefault).toBe("ds");
    expect(removeProvider("ds", home).newDefault).toBeNull();
    const after = readFileSync(file, "utf8");
    expect(after).toBe("# my settings\n[sandbox]\nnetwork = true # on purpose\n");
  });

  test("array-table blocks keep their sub-tables; a removal leaves the neighbours byte for byte", () => {
    const text = '[[providers]]\nname = "a"\nkind = "openai"\n[providers.prices]\ninput = 1\n\n# about b\n[[providers]]\nname = "b"\n\n[agent]\nmax_steps = 3\n';
    expect(findArrayTables(text, "providers").map((b) => [b.name, b.start, b.end])).toEqual([["a", 0, 5], ["b", 7, 9]]);
    expect(removeArrayTable(text, "providers", "a")).toBe('# about b\n[[providers]]\nname = "b"\n\n[agent]\nmax_steps = 3\n');
    expect(removeArrayTable(text, "providers", "zz")).toBeNull();
    expect(parse(appendArrayTable(text, "providers", { name: "c", model: "m" })) as any).toMatchObject({ providers: [{ name: "a" }, { name: "b" }, { name: "c", model: "m" }], agent: { max_steps: 3 } });
  });

  test("a user config that does not parse is named with file:line and nothing is written", () => {
    const home = freshHome();
    const file = join(home, "config.toml");
    writeFileSync(file, "[agent\n");
    expect(() => addProvider({ name: "x", kind: "openai", base_url: "http://x/v1", model: "m" }, { home })).toThrow(`${file}:1:`);
    expect(readFileSync(file, "utf8")).toBe("[agent\n");
  });

  test("keys go to .env with mode 0600", () => {
    const home = freshHome();
    const path = storeKey("MY_API_KEY", "  sk-abc  ", home);
    expect(path).toBe(join(home, ".env"));
    expect(readFileSync(path, "utf8")).toBe("MY_API_KEY=sk-abc\n");
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(() => storeKey("MY_API_KEY", "a\nb", home)).toThrow(/single line/);
    expect(() => storeKey("1BAD", "x", home)).toThrow(/not a variable name/);
  });
});

describe("connection test (real loopback HTTP)", () => {
  test("lists the models and reports the latency", async () => {
    const llm: ScriptedServer = await startScriptedOpenAI([], { models: ["alpha", "beta"] });
    servers.push(llm);
    const r = await testConnection({ name: "s", kind: "openai", base_url: llm.url, model: "alpha" }, { home: freshHome() });
    expect(r.ok).toBe(true);
    expect(r.method).toBe("models");
    expect(r.models).toEqual(["alpha", "beta"]);
    expect(typeof r.latencyMs).toBe("number");
    expect(r.latencyMs).toBeGreaterThanOrEqual(0);
  });

  test("a rejected key gives the provider's exact error, the status and the variable to fix", async () => {
    const srv = keyCheckingServer();
    const home = freshHome();
    storeKey("SRV_API_KEY", "bad", home);
    const r = await testConnection({ name: "srv", kind: "openai", base_url: srv.url, model: "m", api_key_env: "SRV_API_KEY" }, { home });
    expect(r.ok).toBe(false);
    expect(r.errorKind).toBe("auth");
    expect(r.error).toContain("HTTP 401");
    expect(r.error).toContain("Incorrect API key provided: ba**");
    expect(r.error).toContain("SRV_API_KEY");
    // A key passed in (the wizard, before saving) wins over the stored one.
    const good = await testConnection({ name: "srv", kind: "openai", base_url: srv.url, model: "m", api_key_env: "SRV_API_KEY" }, { home, key: "good" });
    expect(good.ok).toBe(true);
    expect(good.models).toEqual(["m-small", "m-large"]);
  });

  test("a missing key is reported with the real .env path, without a request", async () => {
    const srv = keyCheckingServer();
    const home = freshHome();
    const r = await testConnection({ name: "srv", kind: "openai", base_url: srv.url, model: "m", api_key_env: "NOPE_API_KEY" }, { home });
    expect(r.ok).toBe(false);
    expect(r.error).toContain(`NOPE_API_KEY has no value in ${join(home, ".env")}`);
    expect(r.error).not.toContain("$REASONIX_HOME");
  });

  test("without a model list the test falls back to a one-token request", async () => {
    const llm = await startScriptedOpenAI([{ text: "hi" }]);
    servers.push(llm);
    const r = await testConnection({ name: "s", kind: "openai", base_url: llm.url, model: "scripted-model", models_url: `${llm.origin}/no-model-list` }, { home: freshHome() });
    expect(r).toMatchObject({ ok: true, method: "chat" });
    const chat = llm.chatRequests()[0]!.body;
    expect(chat.max_tokens ?? chat.max_completion_tokens).toBe(1);
  });

  test("nothing listening: a network error, not a hang", async () => {
    const r = await testConnection({ name: "s", kind: "openai", base_url: "http://127.0.0.1:9/v1", model: "m" }, { home: freshHome(), timeoutMs: 5000 });
    expect(r.ok).toBe(false);
    expect(r.error).toContain("127.0.0.1:9");
  });
});

/** Answers the wizard's questions from a list, and records everything it says. */
function scriptedIO(answers: (string | number)[]): SetupIO & { said: string[]; asked: string[] } {
  const said: string[] = [];
  const asked: string[] = [];
  const next = (q: string) => {
    asked.push(q);
    if (answers.length === 0) throw new Error(`no scripted answer for: ${q}`);
    return answers.shift()!;
  };
  return {
    said,
    asked,
    say: (t) => void said.push(t),
    choose: async (q, options) => {
      const a = next(q);
      return typeof a === "number" ? a : options.indexOf(a);
    },
    ask: async (q, def) => String(next(q)) || def || "",
    askSecret: async (q) => String(next(`secret: ${q}`)),
  };
}

describe("the wizard", () => {
  test("custom URL: asks, tests the key (retry after a 401), picks a listed model, writes key and entry", async () => {
    const srv = keyCheckingServer();
    const home = freshHome();
    mkdirSync(home, { recursive: true });
    const io = scriptedIO([
      "Any OpenAI-compatible URL", srv.url, "OpenAI Chat Completions", "", // URL, protocol, name (default)
      "yes", "", // needs a key, variable (default)
      "bad", // first key: rejected
      "enter the key again", "good",
      "m-large",
    ]);
    const r = await runSetupWizard(io, { home });
    expect(r.name).toBe("local");
    expect(r.model).toBe("m-large");
    expect(r.test.ok).toBe(true);
    expect(io.said.some((s) => s.includes("HTTP 401") && s.includes("Incorrect API key provided"))).toBe(true);
    expect(io.said.some((s) => /connected in \d+ ms \(2 models listed\)/.test(s))).toBe(true);
    const cfg = parse(readFileSync(join(home, "config.toml"), "utf8")) as any;
    expect(cfg.default_model).toBe("local");
    expect(cfg.providers).toEqual([{ name: "local", kind: "openai", base_url: srv.url, model: "m-large", api_key_env: "LOCAL_API_KEY" }]);
    const env = readFileSync(join(home, ".env"), "utf8");
    expect(env).toBe(`${cfg.providers[0].api_key_env}=good\n`);
    expect(statSync(join(home, ".env")).mode & 0o777).toBe(0o600);
    // The key never lands in the config file or in anything the wizard says.
    expect(readFileSync(join(home, "config.toml"), "utf8")).not.toContain("good\"");
    expect(io.said.join("\n")).not.toContain("good\n");
  });

  test("an endpoint without a model list: type a model id, a one-token request tests it, that model is saved", async () => {
    const llm = await startScriptedOpenAI([{ text: "ok" }]);
    servers.push(llm);
    const home = freshHome();
    // A front that has no model list (404) and passes chat requests to the scripted server.
    const front = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch: (req) =>
        req.method === "GET" ? new Response("not found", { status: 404 }) : fetch(`${llm.url}${new URL(req.url).pathname.replace(/^\/v1/, "")}`, { method: "POST", headers: req.headers, body: req.body }),
    });
    servers.push({ close: () => front.stop(true) });
    const base = `http://127.0.0.1:${front.port}/v1`;
    const io = scriptedIO(["Any OpenAI-compatible URL", base, "OpenAI Chat Completions", "", "no", "type a model id and test with a one-token request", "scripted-model"]);
    const r = await runSetupWizard(io, { home });
    expect(io.said.some((s) => s.includes("give a model id to test with a one-token request"))).toBe(true);
    expect(r.test).toMatchObject({ ok: true, method: "chat" });
    expect(r.model).toBe("scripted-model");
    expect((parse(readFileSync(join(home, "config.toml"), "utf8")) as any).providers[0]).toEqual({ name: "local", kind: "openai", base_url: base, model: "scripted-model" });
  });

  test("connection refused: the wizard offers to change the URL, tests the new one and saves it", async () => {
    const llm = await startScriptedOpenAI([], { models: ["m-one"] });
    servers.push(llm);
    const home = freshHome();
    const io = scriptedIO(["Any OpenAI-compatible URL", "http://127.0.0.1:9/v1", "OpenAI Chat Completions", "", "no", "change the URL", llm.url, "m-one"]);
    const r = await runSetupWizard(io, { home, timeoutMs: 5000 });
    expect(io.said.some((s) => s.startsWith("connection failed after") && s.includes("127.0.0.1:9"))).toBe(true);
    expect(r.test.ok).toBe(true);
    expect((parse(readFileSync(join(home, "config.toml"), "utf8")) as any).providers[0]).toMatchObject({ base_url: llm.url, model: "m-one" });
  });

  test("cancel after a failed test writes nothing", async () => {
    const home = freshHome();
    const io = scriptedIO(["Any OpenAI-compatible URL", "http://127.0.0.1:9/v1", "OpenAI Chat Completions", "", "no", "cancel"]);
    await expect(runSetupWizard(io, { home, timeoutMs: 5000 })).rejects.toThrow(/cancelled; nothing was written/);
    expect(io.said.some((s) => s.startsWith("connection failed after") && s.includes("127.0.0.1:9"))).toBe(true);
    expect(() => readFileSync(join(home, "config.toml"))).toThrow();
    expect(() => readFileSync(join(home, ".env"))).toThrow();
  });
});
