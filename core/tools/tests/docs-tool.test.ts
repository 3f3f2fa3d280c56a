// The agent's docs tool and /docs: BM25 search and section reads over the
// embedded docs, stamped with the version and corpus digest.
import { expect, test } from "bun:test";
import { docsDigest } from "../../docs/index.ts";
import { docsEvidence } from "../../commands/builtin.ts";
import { buildInfo } from "../../version.ts";
import { docsTool } from "../builtin/docs.ts";

const ctx = {} as never;
const stamp = `[reasonix ${buildInfo().version} docs, corpus ${docsDigest().slice(0, 16)}]`;

test("search ranks sections and names version and corpus; section reads one; a wrong section names what exists", async () => {
  const hits = await docsTool.run({ query: "hooks PreToolUse block" }, ctx);
  expect(hits.ok).toBe(true);
  expect(hits.output.startsWith(stamp)).toBe(true);
  expect(hits.output).toContain("commands.md#hooks");
  const sec = await docsTool.run({ section: "commands.md#hooks" }, ctx);
  expect(sec.ok).toBe(true);
  expect(sec.output).toStartWith(`${stamp} commands.md#hooks\n\n## Hooks\n`);
  const bad = await docsTool.run({ section: "commands.md#nope" }, ctx);
  expect(bad).toMatchObject({ ok: false });
  expect(bad.output).toContain('no section "#nope" in commands.md');
  expect((await docsTool.run({}, ctx)).ok).toBe(false);
});

test("/docs hands the local search results to the model as evidence with the question", () => {
  const text = docsEvidence("how do I approve a workspace");
  expect(text).toStartWith(`<docs-evidence version="${buildInfo().version}" corpus="${docsDigest().slice(0, 16)}">\n## `);
  expect(text).toContain("configuration.md#approving-a-workspace");
  expect(text).toContain("Question: how do I approve a workspace");
});
