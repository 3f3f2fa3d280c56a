// Anthropic prompt caching in a tool loop: the breakpoints on the wire over
// five steps, and the usage receipts of a server that caches like Anthropic.
import { afterEach, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { startScriptedAnthropic } from "../../testing/scripted-llm-anthropic.ts";
import type { EngineEvent } from "../types.ts";
import { collect, engineFor, makeSandbox, providerConfig } from "./helpers.ts";

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const marked = (b: any) => !!b?.cache_control;
const countMarks = (body: any): number =>
  (body.tools ?? []).filter(marked).length + body.system.filter(marked).length + body.messages.flatMap((m: any) => m.content).filter(marked).length;

test("a 5-step tool loop marks tools, system, the previous and the latest user turn; cache reads grow every step", async () => {
  const sb = makeSandbox();
  for (const f of ["a", "b", "c", "d"]) writeFileSync(join(sb.workspace, `${f}.txt`), `${f} `.repeat(400));
  const llm = await startScriptedAnthropic(
    [
      ...["a", "b", "c", "d"].map((f) => ({ text: `Reading ${f}.`, toolCalls: [{ name: "read_file", arguments: { path: `${f}.txt` } }] })),
      { text: "All four files are repetitive." },
    ],
    { simulateCache: true },
  );
  const cfg = providerConfig(llm.url);
  (cfg.providers as any[])[0].kind = "anthropic";
  const engine = engineFor(sb, llm.url, { config: cfg });
  cleanups.push(() => sb.cleanup(), () => llm.close(), () => engine.close());
  const session = await engine.createSession();
  const events = collect(session);
  expect(await session.submit("read the four files")).toBe("done");

  const reqs = llm.chatRequests();
  expect(reqs).toHaveLength(5);
  for (const [i, r] of reqs.entries()) {
    const b = r.body;
    expect(countMarks(b)).toBeLessThanOrEqual(4);
    expect(marked(b.tools.at(-1))).toBe(true);
    expect(b.tools.slice(0, -1).some(marked)).toBe(false);
    expect(marked(b.system.at(-1))).toBe(true);
    const last = b.messages.at(-1);
    expect(last.role).toBe("user");
    expect(marked(last.content.at(-1))).toBe(true);
    if (i > 0) {
      // The user turn that ended the previous request keeps its breakpoint: this request reads what that one wrote.
      const prev = b.messages.at(-3);
      expect(prev.role).toBe("user");
      expect(marked(prev.content.at(-1))).toBe(true);
      expect(JSON.stringify(b.messages.slice(0, -3))).not.toContain("cache_control");
    }
  }
  const usage = events.filter((e): e is Extract<EngineEvent, { type: "usage" }> => e.type === "usage").map((e) => e.turn);
  expect(usage).toHaveLength(5);
  for (let i = 1; i < usage.length; i++) expect(usage[i]!.cacheHitTokens).toBeGreaterThan(usage[i - 1]!.cacheHitTokens);
  // Only the newest round (one assistant turn and an 800-character tool result) is paid at the full rate.
  const last = usage.at(-1)!;
  expect(last.cacheHitTokens / last.inputTokens).toBeGreaterThan(0.6);
});
