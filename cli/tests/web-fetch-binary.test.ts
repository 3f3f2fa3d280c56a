// web_fetch through the compiled binary: the scripted model asks for a page
// on the user's own machine (a real HTTP server on 127.0.0.1) through every
// IPv6 spelling that carries or names a loopback address. Each is refused
// before a connection is made; the server sees nothing. With the user's own
// override ([web_fetch] allow_private) the same call does reach it, so the
// refusal is what stops it.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startScriptedOpenAI, type ScriptedServer } from "../../core/testing/scripted-llm.ts";
import { makeScriptedHome, type ScriptedHome } from "../../core/testing/scripted-home.ts";
import { builtDist } from "../../scripts/lib/built-dist.ts";
import { BUILD_HOOK_MS } from "../../remote/testing/test-build.ts";

let binary: string;
let target: ReturnType<typeof Bun.serve>;
const hits: string[] = [];
const cleanups: (() => unknown)[] = [];

beforeAll(async () => {
  target = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: (req) => (hits.push(new URL(req.url).pathname), new Response("<h1>secret admin page</h1>", { headers: { "content-type": "text/html" } })) });
  binary = (await builtDist()).binary;
}, BUILD_HOOK_MS); // the first suite to ask builds the binary
afterAll(async () => {
  target.stop(true);
  for (const c of cleanups.reverse()) await c();
});

const FORMS = [
  "[::ffff:7f00:1]",
  "[0:0:0:0:0:ffff:7f00:1]",
  "[::ffff:127.0.0.1]",
  "[::7f00:1]",
  "[::ffff:0:7f00:1]",
  "[64:ff9b::7f00:1]",
  "[64:ff9b:1::7f00:1]",
  "[2002:7f00:1::]",
  "[2001:0:4136:e378:8000:63bf:80ff:fffe]",
  "[fec0::1]",
  "[::1]",
];

async function runWith(urls: string[], webFetchToml: string): Promise<{ code: number; stderr: string; outputs: string[]; llm: ScriptedServer }> {
  const llm = await startScriptedOpenAI([{ toolCalls: urls.map((url, i) => ({ id: `call_${i}`, name: "web_fetch", arguments: { url } })) }, { text: "done" }]);
  const home: ScriptedHome = makeScriptedHome(llm.url, { prefix: "rx-wf-bin-", key: "sk-wf", extraToml: `[permissions]\nallow = ["WebFetch"]\n${webFetchToml}` });
  cleanups.push(() => llm.close(), () => home.cleanup());
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
  Object.assign(env, { REASONIX_HOME: home.home, NO_COLOR: "1" });
  const proc = Bun.spawn([binary, "run", "read the admin pages"], { cwd: home.workspace, env, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const timer = setTimeout(() => proc.kill("SIGKILL"), 60_000);
  const [, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  clearTimeout(timer);
  const toolMessages = (llm.chatRequests()[1]?.body.messages ?? []).filter((m: any) => m.role === "tool");
  const outputs = urls.map((_, i) => String(toolMessages.find((m: any) => m.tool_call_id === `call_${i}`)?.content ?? "(no result)"));
  return { code, stderr, outputs, llm };
}

describe("web_fetch in the compiled binary", () => {
  test("every IPv6 form of a loopback address is refused, and the server on 127.0.0.1 gets no request", async () => {
    const urls = FORMS.map((h) => `http://${h}:${target.port}/admin`);
    const r = await runWith(urls, "");
    expect(r.code).toBe(0);
    urls.forEach((url, i) => expect([url, r.outputs[i]]).toEqual([url, expect.stringMatching(/^web_fetch refused: .* resolves to .*; web_fetch reaches only public addresses unless the user config sets \[web_fetch\] allow_private = true/)]));
    expect(hits).toEqual([]);
  });

  test("with the user's allow_private the IPv4-mapped form reaches the server (the refusal above is what stops it)", async () => {
    const before = hits.length;
    const r = await runWith([`http://[::ffff:7f00:1]:${target.port}/admin`], "[web_fetch]\nallow_private = true\n");
    expect(r.outputs[0]).toContain("secret admin page");
    expect(hits.slice(before)).toEqual(["/admin"]);
  });
});
