// web_fetch against a real HTTP server on 127.0.0.1: HTML → Markdown, limits,
// the SSRF refusal (loopback reachable only with the user-config override),
// permission rules by domain, and that a project file cannot lift the refusal.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, realpathSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../../config/load.ts";
import { Permissions } from "../../permissions/index.ts";
import { webFetchTool } from "../builtin/web-fetch.ts";
import type { ToolContext } from "../types.ts";
import { nonPublicReason, parseIp } from "../web/addresses.ts";
import { boundedFetch, type FetchLimits } from "../web/fetch.ts";

let server: ReturnType<typeof Bun.serve>;
let base = "";
const hits: string[] = [];

beforeAll(() => {
  server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(req) {
      const u = new URL(req.url);
      hits.push(u.pathname);
      if (u.pathname === "/page") {
        return new Response(
          `<html><head><title>Fish &amp; Chips</title><style>body{}</style><script>alert(1)</script></head><body><nav>menu</nav><main><h1>Hello</h1><p>Some <b>bold</b> text and a <a href="/next">link</a>.</p><ul><li>one</li><li>two</li></ul><pre><code>let x = 1 &lt; 2;</code></pre></main></body></html>`,
          { headers: { "content-type": "text/html; charset=utf-8" } },
        );
      }
      const loop = /^\/loop\/(\d+)$/.exec(u.pathname);
      if (loop) return new Response(null, { status: 302, headers: { location: `/loop/${Number(loop[1]) + 1}` } });
      if (u.pathname === "/hop") return new Response(null, { status: 301, headers: { location: "/page" } });
      if (u.pathname === "/away") return new Response(null, { status: 302, headers: { location: `http://localhost:${server.port}/page` } });
      if (u.pathname === "/big") return new Response("x".repeat(300_000), { headers: { "content-type": "text/plain" } });
      if (u.pathname === "/to-mapped") return new Response(null, { status: 302, headers: { location: `http://[::ffff:7f00:1]:${server.port}/page` } });
      if (u.pathname === "/file-scheme") return new Response(null, { status: 302, headers: { location: "file:///etc/passwd" } });
      return new Response("not here", { status: 404, headers: { "content-type": "text/plain" } });
    },
  });
  base = `http://127.0.0.1:${server.port}`;
});
afterAll(() => server.stop(true));

const ctx = (webFetch: Record<string, unknown> = { allow_private: true }): ToolContext =>
  ({ workspace: "/nonexistent", sessionId: "s", tmpDir: tmpdir(), signal: new AbortController().signal, beforeWrite: async () => {}, readStamps: new Map(), config: { web_fetch: webFetch }, extraWriteRoots: [] }) as ToolContext;
const run = (url: string, c = ctx()) => webFetchTool.run({ url }, c);

describe("web_fetch over real HTTP", () => {
  test("an HTML page comes back as readable Markdown (scripts, styles and navigation dropped)", async () => {
    const r = await run(`${base}/page`);
    expect(r.ok).toBe(true);
    expect(r.output).toContain("# Fish & Chips");
    expect(r.output).toContain("# Hello");
    expect(r.output).toContain("Some **bold** text and a [link](" + base + "/next).");
    expect(r.output).toContain("- one\n- two");
    expect(r.output).toContain("```\nlet x = 1 < 2;\n```");
    expect(r.output).not.toContain("alert");
    expect(r.output).not.toContain("menu");
  });

  test("127.0.0.1 is refused by default and the server sees no request", async () => {
    const before = hits.length;
    const r = await run(`${base}/page`, ctx({}));
    expect(r.ok).toBe(false);
    expect(r.output).toContain("resolves to 127.0.0.1, a loopback address");
    expect(r.output).toContain("allow_private = true");
    // A name that resolves to loopback is refused the same way.
    const byName = await run(`http://localhost:${server.port}/page`, ctx({}));
    expect(byName.ok).toBe(false);
    expect(byName.output).toMatch(/a loopback address/);
    expect(hits.length).toBe(before);
  });

  test("IPv6 forms of 127.0.0.1 are refused before connecting; the server sees no request", async () => {
    // The attack is real: with the user's override the IPv4-mapped form reaches the server on 127.0.0.1.
    expect((await run(`http://[::ffff:7f00:1]:${server.port}/page`)).output).toContain("# Hello");
    const before = hits.length;
    const forms = [
      "[::ffff:7f00:1]",
      "[0:0:0:0:0:ffff:7f00:1]",
      "[::ffff:127.0.0.1]",
      "[0000:0000:0000:0000:0000:FFFF:127.0.0.1]",
      "[::ffff:7f01:203]",
      "[::7f00:1]",
      "[::127.0.0.1]",
      "[::ffff:0:7f00:1]",
      "[64:ff9b::7f00:1]",
      "[64:ff9b::127.0.0.1]",
      "[64:ff9b:1::7f00:1]",
      "[2002:7f00:1::]",
      "[2001:0:4136:e378:8000:63bf:80ff:fffe]",
      "[fec0::1]",
      "[::1]",
      "[::]",
      "[0:0:0:0:0:0:0:1]",
    ];
    for (const host of forms) {
      const r = await run(`http://${host}:${server.port}/page`, ctx({}));
      expect([host, r.ok, r.output]).toEqual([host, false, expect.stringMatching(/^web_fetch refused: .* resolves to .*, an? [a-z].*; web_fetch reaches only public addresses/)]);
    }
    // A redirect to such a form is another host: reported, never followed.
    const redirected = await run(`${base}/to-mapped`);
    expect(redirected.output).toContain(`redirects to another host: http://[::ffff:7f00:1]:${server.port}/page`);
    expect(hits.slice(before)).toEqual(["/to-mapped"]);
  });

  test("DNS answers: every address a name resolves to is checked, and the connection goes to the checked one (no second lookup)", async () => {
    const limits = (answers: string[][], allowPrivate: boolean): FetchLimits & { calls: string[] } => {
      const calls: string[] = [];
      return { maxBytes: 1e6, timeoutMs: 10_000, maxRedirects: 3, allowPrivate, calls, resolve: async (host) => (calls.push(host), (answers[calls.length - 1] ?? answers.at(-1)!).map((address) => ({ address, family: address.includes(":") ? 6 : 4 }))) };
    };
    const signal = new AbortController().signal;
    const before = hits.length;
    // One public answer does not launder a mapped-loopback one next to it.
    for (const answer of [["93.184.216.34", "::ffff:7f00:1"], ["::ffff:a9fe:a9fe"], ["64:ff9b::a00:1"]]) {
      const r = await boundedFetch(`http://names.test:${server.port}/page`, limits([answer], false), signal);
      expect([answer, r.kind, (r as any).reason]).toEqual([answer, "refused", expect.stringMatching(/^names\.test resolves to .*, an? .* address/)]);
    }
    expect(hits.length).toBe(before);
    // Pinned: the first answer is 127.0.0.1 (allowed here), every later one an unroutable address.
    // A second lookup between check and connect would reach nothing; each hop resolves once.
    const l = limits([["127.0.0.1"], ["192.0.2.1"], ["127.0.0.1"]], true);
    const ok = await boundedFetch(`http://names.test:${server.port}/page`, l, signal);
    expect(ok.kind).toBe("ok");
    expect(l.calls).toEqual(["names.test"]);
    // A same-host redirect resolves again (and checks that answer: the same resolveChecked as above).
    const first = limits([["127.0.0.1"]], true);
    expect((await boundedFetch(`http://names.test:${server.port}/hop`, first, signal)).kind).toBe("ok");
    expect(first.calls).toEqual(["names.test", "names.test"]);
  });

  test("redirects: same-host ones are followed up to the limit; another host or scheme is not followed", async () => {
    expect((await run(`${base}/hop`)).output).toContain("# Hello");
    hits.length = 0;
    const r = await run(`${base}/loop/0`, ctx({ allow_private: true, max_redirects: 3 }));
    expect(r.ok).toBe(false);
    expect(r.output).toContain("more than 3 redirects");
    expect(hits).toEqual(["/loop/0", "/loop/1", "/loop/2", "/loop/3"]);
    const away = await run(`${base}/away`);
    expect(away.ok).toBe(false);
    expect(away.output).toContain(`redirects to another host: http://localhost:${server.port}/page`);
    const file = await run(`${base}/file-scheme`);
    expect(file.output).toContain("only http and https URLs can be fetched (got file)");
  });

  test("responses are cut at max_bytes and say so", async () => {
    const r = await run(`${base}/big`, ctx({ allow_private: true, max_bytes: 1000 }));
    expect(r.ok).toBe(true);
    expect(r.output).toContain("cut at the");
    expect(r.output.split("\n")[1]!.length).toBe(1000);
  });

  test("non-http schemes and credentials in URLs are refused", async () => {
    expect((await run("file:///etc/passwd")).output).toContain("only http and https");
    expect((await run("ftp://example.com/x")).output).toContain("only http and https");
    expect((await run(`http://user:pw@127.0.0.1:${server.port}/page`)).output).toContain("credentials");
  });

  test("HTTP errors are failures with the status", async () => {
    const r = await run(`${base}/missing`);
    expect(r.ok).toBe(false);
    expect(r.output).toContain("HTTP 404");
  });
});

describe("SSRF address classes", () => {
  test("IPv6 text of every shape parses to the same 16 bytes", () => {
    const hex = (t: string) => Buffer.from(parseIp(t) ?? []).toString("hex");
    const loop4 = "00000000000000000000ffff7f000001";
    for (const t of ["::ffff:7f00:1", "[::ffff:7f00:1]", "0:0:0:0:0:ffff:7f00:1", "::ffff:127.0.0.1", "0::FFFF:127.0.0.1", "0000:0000:0000:0000:0000:ffff:7f00:0001", "::ffff:7f00:1%eth0"]) expect([t, hex(t)]).toEqual([t, loop4]);
    expect(hex("::1")).toBe("00000000000000000000000000000001");
    expect(hex("1::")).toBe("00010000000000000000000000000000");
    expect(hex("127.0.0.1")).toBe("7f000001");
    for (const bad of ["1::2::3", ":1:2:3:4:5:6:7", "1:2:3:4:5:6:7", "1:2:3:4:5:6:7:8:9", "12345::", "::ffff:127.0.0.256", "::g", "127.1", "0x7f.0.0.1", "1.2.3.4.5", "", "localhost", "1:2:3:4:5:6:7::8:9"]) expect([bad, parseIp(bad)]).toEqual([bad, null]);
  });

  test("every form that carries or names a non-public address is refused, with the embedded IPv4 named", () => {
    const cases: [string, RegExp][] = [
      ["::ffff:7f00:1", /loopback.*127\.0\.0\.1 in IPv4-mapped/],
      ["::ffff:a9fe:a9fe", /link-local.*169\.254\.169\.254 in IPv4-mapped/],
      ["::ffff:a00:1", /private.*10\.0\.0\.1/],
      ["::ffff:0:7f00:1", /loopback.*IPv4-translated/],
      ["::ffff:0:808:808", /reserved/],
      ["::7f00:1", /loopback.*IPv4-compatible/],
      ["::808:808", /reserved.*IPv4-compatible/],
      ["64:ff9b::7f00:1", /loopback.*NAT64/],
      ["64:ff9b::a9fe:a9fe", /link-local.*NAT64/],
      ["64:ff9b:1::808:808", /local-use NAT64/],
      ["64:ff9b:1:ffff::1", /local-use NAT64/],
      ["2002:7f00:1::", /loopback.*6to4/],
      ["2002:c0a8:101::1", /private.*192\.168\.1\.1 in 6to4/],
      ["2001:0:4136:e378:8000:63bf:80ff:fffe", /loopback.*127\.0\.0\.1 in Teredo \(client\)/],
      ["2001:0:a00:1::", /private.*10\.0\.0\.1 in Teredo \(server\)/],
      ["2001:0:4136:e378:8000:63bf:3f57:fefe", /private.*192\.168\.1\.1 in Teredo \(client\)/],
      ["fec0::1", /site-local/],
      ["feff::1", /site-local/],
      ["fe80::1", /link-local/],
      ["fe80::1%eth0", /link-local/],
      ["fd00::1", /unique-local/],
      ["fc00::1", /unique-local/],
      ["ff02::1", /multicast/],
      ["2001:db8::1", /documentation/],
      ["3fff:123::1", /documentation/],
      ["2001:2::1", /benchmarking/],
      ["2001:10::1", /ORCHID/],
      ["2001:20::1", /ORCHIDv2/],
      ["100::1", /discard-only/],
      ["4000::1", /reserved.*2000::\/3/],
      ["5f00::1", /reserved/],
      ["::1", /loopback/],
      ["::", /unspecified/],
      ["127.0.0.1", /loopback/],
      ["127.255.0.9", /loopback/],
      ["0.0.0.0", /unspecified/],
      ["10.1.2.3", /private/],
      ["172.16.5.4", /private/],
      ["172.31.255.255", /private/],
      ["192.168.1.1", /private/],
      ["169.254.169.254", /link-local/],
      ["100.64.0.1", /carrier-grade NAT/],
      ["100.127.255.255", /carrier-grade NAT/],
      ["192.0.0.8", /IETF protocol/],
      ["192.0.2.1", /documentation/],
      ["198.51.100.1", /documentation/],
      ["203.0.113.9", /documentation/],
      ["192.88.99.1", /6to4 relay/],
      ["198.18.0.1", /benchmarking/],
      ["224.0.0.1", /multicast/],
      ["240.0.0.1", /reserved/],
      ["255.255.255.255", /broadcast/],
      ["localhost", /not an IP address/],
    ];
    for (const [a, why] of cases) expect([a, nonPublicReason(a)]).toEqual([a, expect.stringMatching(why)]);
  });

  test("public addresses, also carried in IPv6 forms, stay reachable", () => {
    for (const a of ["93.184.216.34", "8.8.8.8", "172.32.0.1", "100.128.0.1", "2606:4700::1111", "2001:4860:4860::8888", "::ffff:808:808", "64:ff9b::808:808", "2002:808:808::1", "2001:0:4136:e378:8000:63bf:f7f7:f7f7"]) {
      expect([a, nonPublicReason(a)]).toEqual([a, null]);
    }
  });


  test("loopback, private, link-local, CGNAT, unique-local and mapped forms are not public", () => {
    for (const a of ["127.0.0.1", "127.1.2.3", "10.0.0.1", "172.16.5.4", "192.168.1.1", "169.254.169.254", "100.64.0.1", "0.0.0.0", "::1", "::", "fe80::1", "fd00::1", "::ffff:127.0.0.1", "::ffff:169.254.169.254", "64:ff9b::7f00:1", "2002:0a00:0001::1", "224.0.0.1"]) {
      expect([a, nonPublicReason(a)]).not.toEqual([a, null]);
    }
    for (const a of ["93.184.216.34", "8.8.8.8", "172.32.0.1", "2606:4700::1111"]) expect(nonPublicReason(a)).toBeNull();
  });
});

describe("web_fetch permissions", () => {
  const perms = (o: Record<string, unknown> = {}) => new Permissions({ mode: "ask", allow: [], ask: [], deny: [], headless: false, workspace: "/nonexistent-ws", ...o } as any);
  const check = (p: Permissions, url: string) => p.check(webFetchTool as any, { url });

  test("asks by default, even in auto mode, and suggests a rule for the domain", () => {
    const d = check(perms(), "https://docs.example.com/a");
    expect(d.action).toBe("ask");
    expect(d.suggestedRule).toBe("WebFetch(domain:docs.example.com)");
    expect(check(perms({ mode: "auto" }), "https://example.com/").action).toBe("ask");
    expect(check(perms({ mode: "auto", headless: true }), "https://example.com/").action).toBe("deny");
    expect(check(perms({ mode: "yolo" }), "https://example.com/").action).toBe("allow");
  });

  test("WebFetch(domain:…) allows that domain and its subdomains only; deny rules win", () => {
    const p = perms({ allow: ["WebFetch(domain:example.com)"] });
    expect(check(p, "https://example.com/x").action).toBe("allow");
    expect(check(p, "https://docs.example.com/x").action).toBe("allow");
    expect(check(p, "https://example.com.evil.test/x").action).toBe("ask");
    expect(check(p, "https://notexample.com/x").action).toBe("ask");
    const denied = perms({ mode: "yolo", allow: ["WebFetch"], deny: ["WebFetch(domain:internal.example.com)"] });
    expect(check(denied, "https://internal.example.com/").action).toBe("deny");
    expect(check(denied, "https://www.example.com/").action).toBe("allow");
    expect(() => perms({ allow: ["WebFetch(example.com)"] })).toThrow(/WebFetch takes domain:<host>/);
  });

  test("a project reasonix.toml cannot set allow_private, trusted or not", () => {
    const tmp = (p: string) => realpathSync(mkdtempSync(join(tmpdir(), p)));
    const home = tmp("rx-wf-home-");
    const ws = tmp("rx-wf-ws-");
    writeFileSync(join(home, "config.toml"), "");
    writeFileSync(join(ws, "reasonix.toml"), "[web_fetch]\nallow_private = true\n");
    for (const trustProject of [false, true]) {
      const c = loadConfig({ home, cwd: ws, trustProject });
      expect((c.values.web_fetch as any)?.allow_private ?? false).toBe(false);
    }
    writeFileSync(join(home, "config.toml"), "[web_fetch]\nallow_private = true\n");
    expect((loadConfig({ home, cwd: ws }).values.web_fetch as any).allow_private).toBe(true);
  });
});
