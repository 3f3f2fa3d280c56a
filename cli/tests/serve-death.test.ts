// A local `reasonix serve` killed outright (no chance to clean up) is found
// by the next serve of the same home: it keeps a sanitized crash report
// (front end "serve") and says so in one line. A serve stopped the ordinary
// way leaves none.
import { afterAll, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { pollFor } from "../../core/testing/fresh-wait.ts";
import { box, reportFiles, type Box } from "./crash-helpers.ts";

setDefaultTimeout(120_000);
const main = join(import.meta.dir, "..", "main.ts");
const running: ReturnType<typeof Bun.spawn>[] = [];
afterAll(() => { for (const p of running) p.kill("SIGKILL"); });

async function serve(b: Box, name: string) {
  const portFile = join(b.root, `${name}.port`);
  const p = Bun.spawn([process.execPath, main, "serve", "--addr", "127.0.0.1:0", "--port-file", portFile], {
    cwd: b.ws,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: b.root, REASONIX_HOME: b.rx, NO_COLOR: "1" },
    stdin: "ignore",
    stdout: "ignore",
    stderr: "pipe",
  });
  running.push(p);
  let err = "";
  void (async () => { for await (const c of p.stderr as ReadableStream<Uint8Array>) err += new TextDecoder().decode(c); })();
  await pollFor(`${name} listening`, () => existsSync(portFile), (ok) => ok, { timeoutMs: 60_000 });
  return { p, stderr: () => err };
}

test("killed with SIGKILL: the next serve writes a 0600 report for it and says so once; a clean stop leaves none", async () => {
  const b = box();
  const clean = await serve(b, "clean");
  clean.p.kill("SIGTERM");
  expect(await clean.p.exited).toBe(0);

  const killed = await serve(b, "killed");
  killed.p.kill("SIGKILL");
  await killed.p.exited;

  const next = await serve(b, "next");
  const line = `an earlier reasonix serve (pid ${killed.p.pid}) died; a crash report was saved to `;
  const err = await pollFor("the one-line notice", next.stderr, (e) => e.includes(line), { timeoutMs: 30_000 });
  const files = reportFiles(b);
  expect(files).toHaveLength(1);
  expect(err).toContain(files[0]!);
  expect(statSync(files[0]!).mode & 0o777).toBe(0o600);
  const report = JSON.parse(readFileSync(files[0]!, "utf8"));
  expect(report).toMatchObject({ frontEnd: "serve", errorClass: "ChildDied", message: `an earlier reasonix serve (pid ${killed.p.pid}) died (it ended without shutting down)` });
  expect(JSON.stringify(report)).not.toContain(b.root);
  next.p.kill("SIGTERM");
  expect(await next.p.exited).toBe(0);
});
