// Provider-side web_search passthrough (anthropic kind): the server tool is
// offered first, the function tools keep the cache breakpoint, and the tool
// list is the same on every step.
import { afterEach, expect, test } from "bun:test";
import { startScriptedAnthropic } from "../../testing/scripted-llm-anthropic.ts";
import { createProvider } from "../index.ts";
import { findPreset, presetEntryFields } from "../../setup/presets.ts";

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

test("web_search = true adds the server tool ahead of the function tools, byte-identical across steps", async () => {
  const llm = await startScriptedAnthropic([{ text: "one" }, { text: "two" }]);
  cleanups.push(() => llm.close());
  const p = createProvider({ name: "a", kind: "anthropic", model: "claude-x", base_url: llm.url, web_search: true }, { secret: () => undefined });
  const tools = [{ name: "read_file", description: "Read", inputSchema: { type: "object" } }];
  await p.chat({ system: "S", tools, messages: [{ role: "user", content: "search" }] }, {}, new AbortController().signal);
  await p.chat({ system: "S", tools, messages: [{ role: "user", content: "search" }, { role: "assistant", content: "one" }, { role: "user", content: "more" }] }, {}, new AbortController().signal);
  const [a, b] = llm.chatRequests().map((r) => r.body.tools);
  expect(a[0]).toEqual({ type: "web_search_20250305", name: "web_search", max_uses: 5 });
  expect(a[1]).toMatchObject({ name: "read_file", cache_control: { type: "ephemeral" } });
  expect(JSON.stringify(b)).toBe(JSON.stringify(a));
  // The Anthropic and DeepSeek-Anthropic presets turn it on.
  expect(presetEntryFields(findPreset("deepseek-anthropic"), "deepseek-chat").web_search).toBe(true);
  expect(presetEntryFields(findPreset("anthropic"), "claude-sonnet-4-5").web_search).toBe(true);
});
