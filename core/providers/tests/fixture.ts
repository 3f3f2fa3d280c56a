// Per-test fixture for provider tests: a throw-away .env with one key, a
// provider factory reading it, and a default request.
import { afterEach, beforeEach } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SecretStore } from "../../secrets/dotenv.ts";
import type { ScriptedServer } from "../../testing/scripted-llm.ts";
import { createProvider, type ChatRequest, type ProviderConfig } from "../index.ts";

export const policy = { maxAttempts: 3, baseDelayMs: 5, maxDelayMs: 20, maxRetryAfterMs: 5000 };
export const signal = () => new AbortController().signal;

export function providerFixture(base: Omit<ProviderConfig, "base_url">, keyLine: string) {
  const fx = {
    dir: "",
    llm: undefined as ScriptedServer | undefined,
    make(url: string, extra: Partial<ProviderConfig> = {}) {
      const store = new SecretStore(join(fx.dir, ".env"));
      return createProvider({ ...base, base_url: url, ...extra }, { secret: (n) => store.get(n) });
    },
    req(over: Partial<ChatRequest> & { toolName?: string } = {}): ChatRequest {
      const { toolName = "read_file", ...rest } = over;
      return {
        system: "SYS",
        tools: [{ name: toolName, description: toolName === "read_file" ? "Read" : "Edit", inputSchema: { type: "object", properties: { path: { type: "string" } } } }],
        messages: [{ role: "user", content: "hi" }],
        ...rest,
      };
    },
  };
  beforeEach(() => {
    fx.dir = mkdtempSync(join(tmpdir(), `reasonix-${base.kind}-test-`));
    writeFileSync(join(fx.dir, ".env"), `${keyLine}\n`, { mode: 0o600 });
  });
  afterEach(async () => {
    await fx.llm?.close();
    fx.llm = undefined;
    rmSync(fx.dir, { recursive: true, force: true });
  });
  return fx;
}
