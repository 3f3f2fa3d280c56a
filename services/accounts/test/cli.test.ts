// `reasonix login`, `whoami` and `logout` (run as `bun cli/main.ts`) against
// the Worker in real workerd: Bearer tokens end to end.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { pollFor } from "../../../core/testing/fresh-wait.ts";
import { call, cleanupTemp, loginToken, repoRoot, startWorker, tempDir, unavailable, verifiedUser, type Worker } from "./helpers.ts";

setDefaultTimeout(120_000);
const skip = unavailable();
if (skip) console.warn(`SKIPPED accounts CLI tests: ${skip}`);
const script = Bun.which("script");
if (!skip && !script) console.warn("SKIPPED accounts CLI TTY prompt case: util-linux `script` (to make a pseudo-terminal) is not installed");

interface Run {
  code: number;
  out: string;
  err: string;
}

async function reasonix(home: string, args: string[], stdin?: string): Promise<Run> {
  const p = Bun.spawn([process.execPath, join(repoRoot, "cli", "main.ts"), ...args], {
    cwd: home,
    env: { ...process.env, REASONIX_HOME: home, HOME: home, NO_COLOR: "1", REASONIX_ACCOUNTS_URL: "" },
    stdin: stdin === undefined ? "ignore" : new TextEncoder().encode(stdin),
    stdout: "pipe",
    stderr: "pipe",
  });
  const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  return { code, out, err };
}

describe.skipIf(!!skip)("reasonix login / whoami / logout against the local Worker", () => {
  let w: Worker;
  beforeAll(async () => {
    w = await startWorker();
  });
  afterAll(async () => {
    await w?.stop();
    cleanupTemp();
  });

  test("login --password-stdin stores a 0600 token outside config.toml; whoami uses it as Bearer; logout revokes it", async () => {
    const home = tempDir("rx-home-");
    const { email, password } = await verifiedUser(w.url, "cli");
    const login = await reasonix(home, ["login", "--url", w.url, "--email", email, "--password-stdin"], `${password}\n`);
    expect(login.err).toBe("");
    expect(login.code).toBe(0);
    expect(login.out).toBe(`Logged in to ${w.url} as ${email}\n`);
    const file = join(home, "accounts.json");
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const saved = JSON.parse(readFileSync(file, "utf8"));
    expect(saved).toMatchObject({ url: w.url, email });
    expect(saved.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(existsSync(join(home, "config.toml"))).toBe(false);

    const sessions = await call(w.url, "GET", "/v1/sessions", { token: saved.token });
    expect(sessions.body.sessions.find((s: any) => s.current)).toMatchObject({ kind: "token" });

    const who = await reasonix(home, ["whoami"]);
    expect(who).toEqual({ code: 0, out: `${email} at ${w.url}\n`, err: "" });
    const json = await reasonix(home, ["whoami", "--json"]);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.out)).toMatchObject({ url: w.url, user: { email, emailVerified: true } });

    const out = await reasonix(home, ["logout"]);
    expect(out.code).toBe(0);
    expect(out.out).toBe(`Logged out of ${w.url}\n`);
    expect(existsSync(file)).toBe(false);
    expect((await call(w.url, "GET", "/v1/me", { token: saved.token })).status).toBe(401);
    const after = await reasonix(home, ["whoami"]);
    expect(after.code).toBe(1);
    expect(after.err).toContain("not logged in");
    const again = await reasonix(home, ["logout"]);
    expect(again.code).toBe(0);
    expect(again.err).toBe("not logged in\n");
  });

  test("login --token-stdin checks and stores an existing token", async () => {
    const home = tempDir("rx-home-");
    const { email, password } = await verifiedUser(w.url, "clitok");
    const token = await loginToken(w.url, email, password);
    const r = await reasonix(home, ["login", "--url", w.url, "--token-stdin", "--json"], token);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out)).toMatchObject({ url: w.url, user: { email } });
    expect(JSON.parse(readFileSync(join(home, "accounts.json"), "utf8")).token).toBe(token);
    const bad = await reasonix(tempDir("rx-home-"), ["login", "--url", w.url, "--token-stdin"], "A".repeat(43));
    expect(bad.code).toBe(1);
    expect(bad.err).toContain("HTTP 401");
  });

  test("failures: wrong password stores nothing; a revoked session makes whoami fail; plain http to a remote host is refused", async () => {
    const home = tempDir("rx-home-");
    const { email, password } = await verifiedUser(w.url, "clifail");
    const wrong = await reasonix(home, ["login", "--url", w.url, "--email", email, "--password-stdin"], "not the password\n");
    expect(wrong.code).toBe(1);
    expect(wrong.err).toContain("email or password is wrong (HTTP 401)");
    expect(existsSync(join(home, "accounts.json"))).toBe(false);

    expect((await reasonix(home, ["login", "--url", w.url, "--email", email, "--password-stdin"], password)).code).toBe(0);
    const token = JSON.parse(readFileSync(join(home, "accounts.json"), "utf8")).token;
    expect((await call(w.url, "POST", "/v1/logout-all", { token })).status).toBe(204);
    const who = await reasonix(home, ["whoami"]);
    expect(who.code).toBe(1);
    expect(who.err).toContain("no longer valid");

    const http = await reasonix(home, ["login", "--url", "http://accounts.example.test", "--email", email, "--password-stdin"], password);
    expect(http.code).toBe(2);
    expect(http.err).toContain("must use https://");
    const noEmail = await reasonix(home, ["login", "--url", w.url, "--password-stdin"], password);
    expect(noEmail.code).toBe(2);
    expect(noEmail.err).toContain("--email");
  });

  test.skipIf(!script)("on a terminal: the email is asked for, and the password prompt does not echo what is typed", async () => {
    const home = tempDir("rx-home-");
    const { email, password } = await verifiedUser(w.url, "clitty");
    const cmd = [process.execPath, join(repoRoot, "cli", "main.ts"), "login", "--url", w.url].map((a) => `'${a}'`).join(" ");
    const p = Bun.spawn([script!, "-qfec", cmd, "/dev/null"], {
      cwd: home,
      env: { ...process.env, REASONIX_HOME: home, HOME: home, NO_COLOR: "1", TERM: "dumb" },
      stdin: "pipe",
      stdout: "pipe",
      stderr: "pipe",
    });
    // One reader drains stdout for the whole run; waits poll what it has collected
    // (racing each read against a timer dropped the chunk of a read that lost the race).
    let seen = "";
    const drained = (async () => {
      const dec = new TextDecoder();
      for await (const chunk of p.stdout) seen += dec.decode(chunk, { stream: true });
    })();
    // Wait for text written after `since` (the output's length before the action that causes it).
    const waitFor = (text: string, since: number) => pollFor(JSON.stringify(text), () => seen.slice(since), (s) => s.includes(text), { timeoutMs: 60_000 });
    await waitFor("Email: ", 0);
    let since = seen.length;
    p.stdin.write(`${email}\r`);
    await p.stdin.flush();
    // readHidden turns echo off before it writes the prompt.
    await waitFor("Password: ", since);
    since = seen.length;
    p.stdin.write(`${password}\r`);
    await p.stdin.flush();
    await waitFor("Logged in to", since);
    await drained;
    p.stdin.end();
    expect(await p.exited).toBe(0);
    expect(seen).toContain(`Logged in to ${w.url} as ${email}`);
    expect(seen).not.toContain(password);
  });
});
