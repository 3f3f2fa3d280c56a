import { expect, test } from "bun:test";
import { mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseDotenv, SecretStore } from "../dotenv.ts";

const store = () => new SecretStore(join(mkdtempSync(join(tmpdir(), "rx-env-")), ".env"));

test("values round-trip exactly, including quotes, backslashes and newlines", () => {
  const s = store();
  const values = { A: "plain", B: 'say "hi"', C: "back\\slash", D: "literal \\n not a newline", E: "two\nlines", F: "" };
  for (const [k, v] of Object.entries(values)) s.set(k, v);
  const read = s.read();
  for (const [k, v] of Object.entries(values)) expect(read.get(k)).toBe(v);
  expect(statSync(s.path).mode & 0o777).toBe(0o600);
});

test("set keeps comments and other lines; a loosened file is tightened to 0600", () => {
  const s = store();
  writeFileSync(s.path, "# my keys\nexport OLD=1\nOTHER='x y'\n", { mode: 0o644 });
  s.set("OLD", "2");
  expect(readFileSync(s.path, "utf8")).toBe("# my keys\nOLD=2\nOTHER='x y'\n");
  expect(s.get("OTHER")).toBe("x y");
  expect(statSync(s.path).mode & 0o777).toBe(0o600);
});

test("a malformed line is an error naming file:line", () => {
  expect(() => parseDotenv("A=1\nthis is not an assignment\n", "/x/.env")).toThrow("/x/.env:2: expected NAME=value");
  expect(() => store().set("BAD NAME", "v")).toThrow(/invalid variable name/);
});
