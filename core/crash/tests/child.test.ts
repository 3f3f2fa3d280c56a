// A dead child's report (the remote serve under `remote connect`): the last
// error line and frames of its log, through the same scrubbers as any report.
import { expect, test } from "bun:test";
import { childDeathReport, lastErrorLine } from "../child.ts";
import { scrubContext } from "../scrub.ts";

const LOG = [
  "serve listening on 127.0.0.1:41234",
  "POST /api/sessions 200",
  "TypeError: cannot read properties of undefined (token sk-proj-PlantedToken0123456789 for mallory@example.com)",
  "    at handle (/home/alice/.reasonix/bin/0.1.0/reasonix/core/serve/run.ts:88:12)",
  "    at async dispatch (/home/alice/src/app/core/serve/server.ts:140:5)",
].join("\n");

test("the report names the child and why, keeps the log's last error and frames, and nothing secret", () => {
  const r = childDeathReport("remote", "the remote serve (pid 4242)", "connection refused", LOG, scrubContext({ HOME: "/home/alice" }, []));
  expect(r).toMatchObject({ frontEnd: "remote", errorClass: "ChildDied" });
  expect(r.message).toStartWith("the remote serve (pid 4242) died (connection refused); its log ends with: TypeError: cannot read properties of undefined");
  expect(r.stack).toEqual(["at handle (<path>/run.ts:88)", "at dispatch (<path>/server.ts:140)"]);
  const all = JSON.stringify(r);
  for (const bad of ["sk-proj-Planted", "mallory", "/home/alice"]) expect(all).not.toContain(bad);
});

test("a log without an error line (a killed process) gives the reason alone", () => {
  expect(lastErrorLine("listening\nGET /healthz 200\n")).toBeUndefined();
  const r = childDeathReport("remote", "the remote serve (pid 7)", "health check: connection refused", "", scrubContext({}, []));
  expect(r.message).toBe("the remote serve (pid 7) died (health check: connection refused)");
  expect(r.stack).toEqual([]);
});
