// Crash reports end to end against the real CLI (`bun cli/main.ts`): each
// front end crashed on purpose (the test-only REASONIX_TEST_CRASH switch,
// inert in stamped release builds) leaves one scrubbed 0600 report and says
// so in one line; `reasonix report` previews, lists, shows, sends to a
// loopback collector (deleting only after a 2xx) and deletes.
import { describe, expect, test } from "bun:test";
import { appendFileSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { box, cli, collector, crash, EMAIL, NEVER, reportFiles, TOKEN, type Box } from "./crash-helpers.ts";

const FRONT_ENDS: [surface: string, args: string[]][] = [
  ["run", ["run", "hello"]],
  ["chat", ["chat"]],
  ["serve", ["serve", "--addr", "127.0.0.1:0"]],
  ["acp", ["acp"]],
  ["mcp-serve", ["mcp", "serve"]],
  ["remote", ["remote", "connect", "somehost"]],
];

function expectCleanReport(b: Box, surface: string, r: { err: string; code: number }) {
  expect(r.code).toBe(1);
  const files = reportFiles(b);
  expect(files).toHaveLength(1);
  const file = files[0]!;
  expect(statSync(file).mode & 0o777).toBe(0o600);
  expect(statSync(join(b.rx, "crash-reports")).mode & 0o777).toBe(0o700);
  // One line says where it is and how to review it.
  const lines = r.err.split("\n").filter((l) => l.includes("reasonix report"));
  expect(lines).toEqual([`A crash report was saved to ${file} (nothing is sent); review or send it with: reasonix report`]);
  const text = readFileSync(file, "utf8");
  for (const bad of NEVER(b)) expect(text).not.toContain(bad);
  const report = JSON.parse(text);
  expect(report).toMatchObject({ schema: 1, frontEnd: surface, errorClass: "TypeError", commit: "dev", platform: `${process.platform}-${process.arch}` });
  expect(report.message).toStartWith(`test crash in ${surface}: <token> for <email> reading ~/private/notes.ts with <secret> and <secret> GITHUB_TOKEN=<secret>`);
  expect(report.stack.length).toBeGreaterThan(0);
  for (const frame of report.stack) expect(frame).toMatch(/^at .*\((<path>\/[^/]+\.ts:\d+|native|<unknown>)\)$/);
  expect(report.stack.join("\n")).toContain("<path>/test-crash.ts:");
}

describe("each front end, crashed on purpose, leaves one scrubbed report", () => {
  for (const [surface, args] of FRONT_ENDS) {
    test(`${surface}: thrown at its top level`, async () => {
      const b = box();
      expectCleanReport(b, surface, await crash(b, surface, args));
    });
  }
  test("serve: an unhandled rejection reaches the process handler", async () => {
    const b = box();
    expectCleanReport(b, "serve", await crash(b, "serve", ["serve", "--addr", "127.0.0.1:0"], ":reject"));
  });
  test("run: an uncaught exception from a timer reaches the process handler", async () => {
    const b = box();
    expectCleanReport(b, "run", await crash(b, "run", ["run", "hello"], ":async"));
  });
});

test("the switch is inert in a stamped (release) build, and for another front end", async () => {
  const b = box();
  const stamped = await cli(b, ["run", "hello"], { REASONIX_TEST_CRASH: "run" }, ["--define", '__REASONIX_BUILD__={"version":"9.9.9","commit":"abc1234","buildTime":""}']);
  expect(stamped.err).not.toContain("test crash");
  const other = await cli(b, ["run", "hello"], { REASONIX_TEST_CRASH: "serve" });
  expect(other.err).not.toContain("test crash");
  // Both stop at the missing provider: a ReasonixError is not a crash.
  expect(stamped.err).toContain("no model provider is configured");
  expect(reportFiles(b)).toEqual([]);
});

describe("reasonix report", () => {
  /** A box whose collector answers STATUS, with one report from a crashed `run`; the collector stops after FN. */
  async function crashedRun(status: number, fn: (b: Box, c: ReturnType<typeof collector>, file: string) => Promise<void>) {
    const c = collector(status);
    try {
      const b = box(`[report]\nendpoint = "${c.url}"\n`);
      await crash(b, "run", ["run", "hello"]);
      await fn(b, c, reportFiles(b)[0]!);
    } finally { c.stop(); }
  }

  test("send: POSTs the scrubbed report to the configured collector, then deletes it", () =>
    crashedRun(201, async (b, c, file) => {
      const id = file.split("/").pop()!.replace(/\.json$/, "");
      const r = await cli(b, ["report", "send"]);
      expect(r.code).toBe(0);
      expect(r.out).toContain(`sent crash report ${id}`);
      expect(c.bodies).toHaveLength(1);
      const sent = JSON.parse(c.bodies[0]!);
      expect(sent).toMatchObject({ id, frontEnd: "run", errorClass: "TypeError" });
      for (const bad of NEVER(b)) expect(c.bodies[0]).not.toContain(bad);
      expect(reportFiles(b)).toEqual([]);
    }));

  test("the scrubbers run again right before sending: what was added to the file, or became secret, after saving never leaves", () =>
    crashedRun(200, async (b, c, file) => {
      // A value that only became a secret later (a key added to .env), and a token, an e-mail
      // and a home path written into the saved file (by hand, or by an older version).
      const late = "late-secret-value-xyzzy";
      appendFileSync(join(b.rx, ".env"), `LATE_PROVIDER_API_KEY=${late}\n`);
      const report = JSON.parse(readFileSync(file, "utf8"));
      report.message += ` then ${late} and ${TOKEN} for ${EMAIL} in ${b.root}/x.ts`;
      report.stack.push(`at edit (${b.root}/src/x.ts:3:4)`);
      writeFileSync(file, JSON.stringify(report));
      const show = await cli(b, ["report", "show"]);
      expect(show.code).toBe(0);
      expect(JSON.parse(show.out).message).toContain("then <secret> and <token> for <email> in ~/x.ts");
      const r = await cli(b, ["report", "send"]);
      expect(r.code).toBe(0);
      expect(c.bodies).toHaveLength(1);
      for (const bad of [late, ...NEVER(b)]) {
        expect(show.out).not.toContain(bad);
        expect(c.bodies[0]).not.toContain(bad);
      }
    }));

  test("send: a collector answering 500 keeps the report (exit 1); a dead one too", async () => {
    const c = collector(500);
    try {
      const b = box(`[report]\nendpoint = "${c.url}"\n`);
      await crash(b, "acp", ["acp"]);
      const before = reportFiles(b);
      const r = await cli(b, ["report", "send"]);
      expect(r.code).toBe(1);
      expect(r.err).toContain("(HTTP 500)");
      expect(c.bodies).toHaveLength(1);
      expect(reportFiles(b)).toEqual(before);
      c.stop();
      const dead = await cli(b, ["report", "send"]);
      expect(dead.code).toBe(1);
      expect(dead.err).toContain("could not send crash report");
      expect(reportFiles(b)).toEqual(before);
    } finally { c.stop(); }
  });

  test("a project config cannot redirect reports: only the user's endpoint is used", async () => {
    const good = collector(200);
    const evil = collector(200);
    try {
      const b = box(`[report]\nendpoint = "${good.url}"\n`, `[report]\nendpoint = "${evil.url}"\n`);
      await crash(b, "serve", ["serve", "--addr", "127.0.0.1:0"]);
      const r = await cli(b, ["report", "send"]);
      expect(r.code).toBe(0);
      expect(good.bodies).toHaveLength(1);
      expect(evil.bodies).toHaveLength(0);
    } finally { good.stop(); evil.stop(); }
  });

  test("piped: bare `report` previews the newest and sends nothing", async () => {
    const c = collector(200);
    try {
      const b = box(`[report]\nendpoint = "${c.url}"\n`);
      await crash(b, "chat", ["chat"]);
      const [file] = reportFiles(b);
      const id = file!.split("/").pop()!.replace(/\.json$/, "");
      const r = await cli(b, ["report"]);
      expect(r.code).toBe(0);
      expect(r.out).toContain(`crash report ${id}`);
      expect(r.out).toContain('"frontEnd": "chat"');
      expect(r.out).toContain(`not sent; to send it to ${c.url}: reasonix report send ${id}`);
      expect(c.bodies).toHaveLength(0);
      expect(reportFiles(b)).toEqual([file!]);
    } finally { c.stop(); }
  });

  test("list --json, show ID, delete ID; unknown id exit 1, unknown action exit 2", async () => {
    const b = box();
    await crash(b, "run", ["run", "hello"]);
    await crash(b, "mcp-serve", ["mcp", "serve"]);
    const list = await cli(b, ["report", "list", "--json"]);
    expect(list.code).toBe(0);
    const items = JSON.parse(list.out) as { id: string; frontEnd: string }[];
    expect(items.map((i) => i.frontEnd).sort()).toEqual(["mcp-serve", "run"]);
    const show = await cli(b, ["report", "show", items[1]!.id]);
    expect(show.code).toBe(0);
    expect(JSON.parse(show.out).id).toBe(items[1]!.id);
    const del = await cli(b, ["report", "delete", items[1]!.id]);
    expect(del.code).toBe(0);
    expect(reportFiles(b)).toHaveLength(1);
    const missing = await cli(b, ["report", "show", items[1]!.id]);
    expect(missing.code).toBe(1);
    expect(missing.err).toContain(`no crash report "${items[1]!.id}"`);
    const bad = await cli(b, ["report", "sned"]);
    expect(bad.code).toBe(2);
    expect(bad.err).toContain('did you mean "reasonix report send"');
  });

  test("no reports: preview and list say so, exit 0", async () => {
    const b = box();
    const r = await cli(b, ["report"]);
    expect(r.code).toBe(0);
    expect(r.err).toContain("no crash reports");
    expect(JSON.parse((await cli(b, ["report", "list", "--json"])).out)).toEqual([]);
  });

  test("doctor shows pending crash reports", async () => {
    const b = box();
    await crash(b, "acp", ["acp"]);
    const r = await cli(b, ["doctor", "--json"]);
    const report = JSON.parse(r.out);
    expect(report.crashReports).toEqual({ pending: 1, dir: join(b.rx, "crash-reports") });
    expect(report.checks.find((c: { id: string }) => c.id === "crash-reports")).toMatchObject({ status: "ok", hint: "review, send or delete them: reasonix report" });
  });
});
