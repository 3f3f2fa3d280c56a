// The presets catalog: every preset is well-formed data; a preset added by
// setup (entry + config file) works end to end against the scripted servers.
import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../../config/load.ts";
import { createProvider, providerEntries } from "../../providers/index.ts";
import { startScriptedOpenAI } from "../../testing/scripted-llm.ts";
import { startScriptedAnthropic } from "../../testing/scripted-llm-anthropic.ts";
import { entryFromInput } from "../entry.ts";
import { CATALOG, PRESETS, findPreset } from "../presets.ts";
import { addProvider } from "../providers.ts";

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});
const tmp = (p: string) => realpathSync(mkdtempSync(join(tmpdir(), p)));

describe("catalog data", () => {
  test("the services the issue names are there, each well-formed; the interactive list is unchanged", () => {
    for (const id of ["deepseek", "deepseek-anthropic", "openai", "anthropic", "openrouter", "kimi", "kimi-cn", "minimax", "minimax-cn", "zai", "bigmodel", "qwen", "stepfun", "groq", "nvidia", "huggingface", "vercel", "ollama", "ollama-cloud", "lmstudio", "custom"]) {
      expect(findPreset(id)?.id).toBe(id);
    }
    const ids = new Set<string>();
    for (const p of CATALOG) {
      expect(ids.has(p.id)).toBe(false);
      ids.add(p.id);
      expect(["openai", "anthropic", "responses"]).toContain(p.kind);
      if (p.id !== "custom") expect(new URL(p.baseUrl).protocol).toMatch(/^https?:$/);
      if (!p.local && p.id !== "custom") expect(p.keyEnv).toMatch(/^[A-Z][A-Z0-9_]*$/);
      for (const m of p.models ?? []) expect(m.contextWindow ?? 16384).toBeGreaterThanOrEqual(16384);
      if (p.model && p.models) expect(p.models.map((m) => m.id)).toContain(p.model);
    }
    expect(PRESETS.map((p) => p.id)).toEqual(["openai", "anthropic", "deepseek", "openrouter", "groq", "ollama", "lmstudio", "custom"]);
  });
});

describe("a preset added by setup, end to end", () => {
  test("openrouter: its attribution headers are written to the config and sent", async () => {
    const llm = await startScriptedOpenAI([{ text: "ok" }]);
    cleanups.push(() => llm.close());
    const home = tmp("rx-cat-home-");
    const { entry } = entryFromInput({ name: "or", preset: "openrouter", baseUrl: llm.url });
    addProvider(entry, { home, makeDefault: true });
    expect(readFileSync(join(home, "config.toml"), "utf8")).toContain('headers = { "HTTP-Referer" = "https://github.com/reasonix", "X-Title" = "Reasonix" }');
    const [cfg] = providerEntries(loadConfig({ home, cwd: tmp("rx-cat-ws-") }).values);
    await createProvider(cfg!, { secret: () => "sk-or" }).chat({ system: "S", tools: [], messages: [{ role: "user", content: "hi" }] }, {}, new AbortController().signal);
    const sent = llm.chatRequests()[0]!;
    expect(sent.headers["x-title"]).toBe("Reasonix");
    expect(sent.headers["http-referer"]).toBe("https://github.com/reasonix");
    expect(sent.headers.authorization).toBe("Bearer sk-or");
    expect(sent.body.model).toBe("openrouter/auto");
  });

  test("minimax: anthropic kind with Bearer auth, its context window; deepseek: thinking shape", async () => {
    const llm = await startScriptedAnthropic([{ text: "ok" }]);
    cleanups.push(() => llm.close());
    const home = tmp("rx-cat-home-");
    addProvider(entryFromInput({ name: "mm", preset: "minimax", baseUrl: llm.url }).entry, { home, makeDefault: true });
    addProvider(entryFromInput({ name: "ds", preset: "deepseek", model: "deepseek-reasoner" }).entry, { home });
    const entries = providerEntries(loadConfig({ home, cwd: tmp("rx-cat-ws-") }).values);
    expect(entries.map((e) => [e.name, e.kind, e.auth, e.context_window, e.capability])).toEqual([
      ["mm", "anthropic", "bearer", 204800, undefined],
      ["ds", "openai", undefined, 131072, "deepseek-thinking"],
    ]);
    await createProvider(entries[0]!, { secret: () => "mm-key" }).chat({ system: "S", tools: [], messages: [{ role: "user", content: "hi" }] }, {}, new AbortController().signal);
    expect(llm.chatRequests()[0]!.headers.authorization).toBe("Bearer mm-key");
    expect(llm.chatRequests()[0]!.headers["x-api-key"]).toBeUndefined();
  });
});

test("a context window below 16384 loads with a warning naming the entry", () => {
  const home = tmp("rx-cat-home-");
  require("node:fs").writeFileSync(join(home, "config.toml"), '[[providers]]\nname = "tiny"\nkind = "openai"\nbase_url = "http://127.0.0.1:1/v1"\nmodel = "m"\ncontext_window = 8000\n');
  const c = loadConfig({ home, cwd: tmp("rx-cat-ws-") });
  expect(c.warnings.some((w) => w.includes('providers[0] ("tiny").context_window = 8000 is below 16384'))).toBe(true);
  expect(providerEntries(c.values)[0]!.context_window).toBe(8000);
});
