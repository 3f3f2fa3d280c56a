// credentials = "local-proxy" (issue 18, item 9): the provider key stays on the
// laptop. A full turn of the remote serve reaches the scripted model through the
// local provider proxy (ssh -R), with the key added locally; the key is in no
// remote file, /proc/*/environ or /proc/*/cmdline of the remote user; the
// proxy answers 401 without the secret. Real sshd, compiled serve.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { buildTestBinary, type TestBuild, BUILD_HOOK_MS } from "../testing/test-build.ts";
import { skipWithoutSshd, startSshd, type SshdHandle } from "../testing/sshd-harness.ts";
import { startScriptedOpenAI, type ScriptedServer } from "../../core/testing/scripted-llm.ts";
import { interrupt, makeLocalEnv, startConnect, type LocalEnv, type Running } from "./supervisor-support.ts";

const skip = skipWithoutSshd("local-proxy credentials tests");
const KEY = `sk-laptop-only-${crypto.randomUUID()}`;

/** Pids of processes running as uid. */
function pidsOf(uid: number): number[] {
  const out: number[] = [];
  for (const d of readdirSync("/proc")) {
    if (!/^\d+$/.test(d)) continue;
    try {
      if (statSync(`/proc/${d}`).uid === uid) out.push(Number(d));
    } catch {}
  }
  return out;
}

const readOr = (f: string) => {
  try {
    return readFileSync(f);
  } catch {
    return Buffer.alloc(0);
  }
};

async function api(port: number, token: string, method: string, path: string, body?: unknown): Promise<Response> {
  return fetch(`http://127.0.0.1:${port}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

/** One prompt through the tunnel; resolves with the assistant's text from the history (bounded wait). */
async function turn(port: number, token: string, id: string, prompt: string, want: string): Promise<void> {
  const history = async () => ((await (await api(port, token, "GET", `/api/sessions/${id}/history`)).json()) as any).events as any[];
  const earlier = (await history()).length;
  expect((await api(port, token, "POST", `/api/sessions/${id}/prompt`, { prompt })).status).toBe(202);
  for (let i = 0; i < 600; i++) {
    const events = (await history()).slice(earlier);
    if (events.some((e: any) => e.type === "assistant" && e.text === want)) return;
    const end = events.find((e: any) => e.type === "turn_end" && e.reason !== "done");
    if (end) throw new Error(`turn ended: ${JSON.stringify(events.slice(-4))}`);
    await Bun.sleep(100);
  }
  throw new Error("no answer within 60 s");
}

describe.skipIf(skip)("credentials = local-proxy (real sshd, compiled serve)", () => {
  let sshd: SshdHandle;
  let build: TestBuild;
  let env: LocalEnv;
  let llm: ScriptedServer;
  let r: Running | null = null;

  beforeAll(async () => {
    [build, sshd, llm] = await Promise.all([buildTestBinary(), startSshd(), startScriptedOpenAI()]);
    sshd.runAsUser("mkdir -p ~/proj");
    env = makeLocalEnv(sshd, {
      releaseDir: build.releaseDir,
      workspace: "~/proj",
      extraToml: ['credentials = "local-proxy"', "", "[[providers]]", 'name = "laptop"', 'kind = "openai"', `base_url = "${llm.url}"`, 'model = "m1"', 'api_key_env = "LAPTOP_KEY"', "context_window = 64000"].join("\n"),
    });
    writeFileSync(join(env.env.REASONIX_HOME!, ".env"), `LAPTOP_KEY=${KEY}\n`, { mode: 0o600 });
  }, BUILD_HOOK_MS);

  afterAll(async () => {
    if (r) await interrupt(r);
    await sshd?.stop();
    await llm?.close();
    env?.cleanup();
  });

  test("a full turn of the remote serve reaches the model via the laptop; the key is nowhere on the remote", async () => {
    r = startConnect(env);
    const ready = await r.waitFor((e) => e.event === "ready", 150_000);
    const fwd = r.events.find((e) => e.event === "forward" && String(e.spec).startsWith("provider proxy"))!;
    expect(fwd.status).toBe("attached");
    const token = /#token=([0-9a-f]+)/.exec(ready.url)![1]!;

    const models = (await (await api(ready.local_port, token, "GET", "/api/models")).json()) as any;
    expect(models.models.map((m: any) => m.name)).toEqual(["laptop"]);

    llm.push({ text: "answered via the laptop" });
    const created = await api(ready.local_port, token, "POST", "/api/sessions", {});
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as { id: string };
    await turn(ready.local_port, token, id, "hello", "answered via the laptop");
    const seen = llm.chatRequests();
    expect(seen.length).toBe(1);
    expect(seen[0]!.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(JSON.stringify(seen[0]!.headers)).not.toContain("x-reasonix-proxy-secret");

    // The manifest: private, no key.
    const manifest = join(sshd.home, ".reasonix/remote/provider-proxy.json");
    expect(statSync(manifest).mode & 0o777).toBe(0o600);
    const m = JSON.parse(readFileSync(manifest, "utf8"));
    expect(m.providers.map((p: any) => p.name)).toEqual(["laptop"]);
    expect(m.providers[0].api_key_env).toBeUndefined();

    // The key in no file of the remote user (home incl. state dir and sessions), environ or cmdline.
    const grep = Bun.spawnSync(["grep", "-rlF", "--", KEY, sshd.home]);
    expect(grep.stdout.toString()).toBe("");
    expect(grep.exitCode).toBe(1); // 1 = searched, no match (2 = error)
    const pids = pidsOf(sshd.uid);
    expect(pids).toContain(ready.pid);
    for (const pid of pids) {
      for (const f of ["environ", "cmdline"]) {
        const data = readOr(`/proc/${pid}/${f}`).toString("latin1");
        expect(data.includes(KEY)).toBe(false);
        // The secret is in the 0600 file only, never argv or environment.
        expect(data.includes(m.secret)).toBe(false);
      }
    }
    const serveEnv = readOr(`/proc/${ready.pid}/environ`).toString("latin1");
    expect(serveEnv).toContain("REASONIX_PROVIDER_PROXY_FILE=");

    // The forward on the remote's loopback refuses anyone without the secret.
    const port = Number(new URL(m.url).port);
    const url = `http://127.0.0.1:${port}/p/laptop/chat/completions`;
    expect((await fetch(url, { method: "POST", body: "{}" })).status).toBe(401);
    expect((await fetch(url, { method: "POST", body: "{}", headers: { "x-reasonix-proxy-secret": "f".repeat(64) } })).status).toBe(401);
    expect(llm.chatRequests().length).toBe(1);
  }, 240_000);

  test("after a link cut the forward comes back on the same port and the serve's next turn goes through", async () => {
    const ready = r!.events.find((e) => e.event === "ready")!;
    const token = /#token=([0-9a-f]+)/.exec(ready.url)![1]!;
    const manifest = join(sshd.home, ".reasonix/remote/provider-proxy.json");
    const before = JSON.parse(readFileSync(manifest, "utf8"));
    // Cut the link: kill the per-connection sshd process(es) of the remote user.
    const sessions = pidsOf(sshd.uid).filter((pid) => readOr(`/proc/${pid}/cmdline`).toString("latin1").startsWith("sshd"));
    expect(sessions.length).toBeGreaterThan(0);
    const from = r!.events.length;
    for (const pid of sessions) process.kill(pid, "SIGKILL");
    await r!.waitFor((e) => e.event === "disconnected", 30_000, from);
    const again = await r!.waitFor((e) => e.event === "ready" && e.reconnect, 60_000, from);
    expect(again.pid).toBe(ready.pid);
    await r!.waitFor((e) => e.event === "forward" && String(e.spec).startsWith("provider proxy") && e.status === "attached", 60_000, from);
    // Same URL and entries (the running serve read them at start); a new secret for the new connection.
    const after = JSON.parse(readFileSync(manifest, "utf8"));
    expect({ ...after, secret: "" }).toEqual({ ...before, secret: "" });
    expect(after.secret).not.toBe(before.secret);
    llm.push({ text: "second answer" });
    const { id } = (await (await api(ready.local_port, token, "POST", "/api/sessions", {})).json()) as { id: string };
    await turn(ready.local_port, token, id, "again", "second answer");
    expect(llm.chatRequests().at(-1)!.headers.authorization).toBe(`Bearer ${KEY}`);
  }, 180_000);

  test("with no connection the remote serve's model call fails with \"laptop link down, retrying\"; the next connect brings it back", async () => {
    const ready = r!.events.find((e) => e.event === "ready")!;
    const token = /#token=([0-9a-f]+)/.exec(ready.url)![1]!;
    expect(await interrupt(r!)).toBe(0);
    r = null;
    // The serve keeps running; talk to it on the remote's loopback (this machine in the test).
    const servePort = Number(String(ready.remote_addr).split(":").pop());
    const calls = llm.chatRequests().length;
    const { id } = (await (await api(servePort, token, "POST", "/api/sessions", {})).json()) as { id: string };
    expect((await api(servePort, token, "POST", `/api/sessions/${id}/prompt`, { prompt: "anyone?" })).status).toBe(202);
    let end: any = null;
    for (let i = 0; i < 600 && !end; i++) {
      const h = (await (await api(servePort, token, "GET", `/api/sessions/${id}/history`)).json()) as any;
      end = h.events.find((e: any) => e.type === "turn_end");
      if (!end) await Bun.sleep(100);
    }
    expect(end?.reason).toBe("error");
    expect(end.error).toContain("laptop link down, retrying");
    expect(llm.chatRequests().length).toBe(calls);

    r = startConnect(env);
    const back = await r.waitFor((e) => e.event === "ready", 60_000);
    expect(back.pid).toBe(ready.pid);
    await r.waitFor((e) => e.event === "forward" && String(e.spec).startsWith("provider proxy") && e.status === "attached", 60_000);
    llm.push({ text: "back again" });
    await turn(servePort, token, id, "now?", "back again");
    // Still nowhere in the remote user's files after failed and resumed turns.
    expect(Bun.spawnSync(["grep", "-rlF", "--", KEY, sshd.home]).exitCode).toBe(1);
  }, 180_000);

  test("a serve that started before the manifest is named (provider_manifest_stale); `serve restart` makes it use the laptop", async () => {
    expect(await interrupt(r!)).toBe(0);
    r = null;
    sshd.runAsUser("rm -f ~/.reasonix/remote/provider-proxy.json");
    r = startConnect(env);
    const ready = await r.waitFor((e) => e.event === "ready", 60_000);
    const stale = r.events.find((e) => e.event === "error" && e.code === "provider_manifest_stale")!;
    expect(stale.terminal).toBe(false);
    expect(stale.hint).toBe("reasonix remote serve restart box");
    const restarted = Bun.spawnSync([process.execPath, resolve(import.meta.dir, "../../cli/main.ts"), "remote", "serve", "restart", "box", "--json"], { cwd: env.dir, env: env.env });
    expect(restarted.exitCode).toBe(0);
    // Same token and the tunnel follows the new serve (the supervisor's health check).
    const token = /#token=([0-9a-f]+)/.exec(ready.url)![1]!;
    await r.waitFor((e) => e.event === "serve_restarted" || (e.event === "ready" && e.pid !== ready.pid), 60_000).catch(() => null);
    let ok = false;
    for (let i = 0; i < 300 && !ok; i++) {
      ok = (await api(ready.local_port, token, "GET", "/api/status").then((x) => x.status, () => 0)) === 200;
      if (!ok) await Bun.sleep(100);
    }
    llm.push({ text: "after restart" });
    const { id } = (await (await api(ready.local_port, token, "POST", "/api/sessions", {})).json()) as { id: string };
    await turn(ready.local_port, token, id, "hi", "after restart");
  }, 180_000);
});

test("remote add --credentials local-proxy is stored in the host's entry; other values are usage errors", () => {
  const dir = mkdtempSync(join(tmpdir(), "rx-cred-"));
  try {
    const run = (args: string[]) =>
      Bun.spawnSync([process.execPath, resolve(import.meta.dir, "../../cli/main.ts"), "remote", "add", ...args], { env: { PATH: process.env.PATH, HOME: dir, REASONIX_HOME: dir, NO_COLOR: "1" } });
    expect(run(["gpu", "dev@gpu.example", "--credentials", "local-proxy"]).exitCode).toBe(0);
    expect(run(["plain", "dev@plain.example"]).exitCode).toBe(0);
    expect(run(["bad", "dev@bad.example", "--credentials", "laptop"]).exitCode).toBe(2);
    const toml = readFileSync(join(dir, "config.toml"), "utf8");
    expect(toml).toMatch(/name = "gpu"[^[]*credentials = "local-proxy"/);
    expect(toml.match(/credentials/g)!.length).toBe(1);
    expect(toml).not.toContain('"bad"');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
