// @references: files (with line ranges), folders, MCP resources, and
// mentions that name nothing staying literal; forbid_read applies.
import { expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, realpathSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createPathPolicy } from "../../policy/paths.ts";
import { completeReference, resolveReferences } from "../references.ts";

function ws() {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "rx-refs-")));
  mkdirSync(join(root, "src/sub"), { recursive: true });
  writeFileSync(join(root, "src/a.ts"), Array.from({ length: 30 }, (_, i) => `line ${i + 1}`).join("\n") + "\n");
  writeFileSync(join(root, "src/b.ts"), "export const b = 1;\n");
  writeFileSync(join(root, "src/gen.js"), "generated\n");
  writeFileSync(join(root, ".gitignore"), "src/gen.js\nsecret/\n");
  mkdirSync(join(root, ".git"));
  mkdirSync(join(root, "secret"));
  writeFileSync(join(root, "secret/key.txt"), "hunter2\n");
  return root;
}

test("@file attaches it numbered, @file:10-12 and #L10-L12 a range, @dir/ a listing (gitignore respected); unknown @names stay literal", async () => {
  const root = ws();
  const r = await resolveReferences("look at @src/a.ts:10-12, and @src/b.ts. @src/ ping @alice and @nothing/here", { workspace: root });
  expect(r.refs.map((x) => [x.kind, x.target])).toEqual([["file", "src/a.ts"], ["file", "src/b.ts"], ["dir", "src"]]);
  expect(r.content.startsWith("look at @src/a.ts:10-12, and @src/b.ts. @src/ ping @alice and @nothing/here\n\n")).toBe(true);
  expect(r.content).toContain('<file path="src/a.ts" lines="10-12">\n  10\tline 10\n  11\tline 11\n  12\tline 12\n</file>');
  expect(r.content).toContain('<file path="src/b.ts" lines="1-1">\n   1\texport const b = 1;\n</file>');
  expect(r.content).toContain('<directory path="src/">\nsub/\na.ts\nb.ts\n</directory>');
  const hash = await resolveReferences("@src/a.ts#L2-L3", { workspace: root });
  expect(hash.content).toContain('lines="2-3">\n   2\tline 2\n   3\tline 3\n</file>');
  const plain = await resolveReferences("thanks @bob, see @you", { workspace: root });
  expect(plain).toEqual({ content: "thanks @bob, see @you", refs: [], refused: [] });
});

test("forbid_read and paths outside the workspace are refused with the reason, never attached", async () => {
  const root = ws();
  const outside = realpathSync(mkdtempSync(join(tmpdir(), "rx-refs-out-")));
  writeFileSync(join(outside, "o.txt"), "outside text\n");
  symlinkSync(join(outside, "o.txt"), join(root, "link.txt"));
  const policy = createPathPolicy({ config: { forbid_read: [join(root, "secret")] }, cwd: root });
  const r = await resolveReferences("@secret/key.txt @link.txt", { workspace: root, policy });
  expect(r.refs).toEqual([]);
  expect(r.content).not.toContain("hunter2");
  expect(r.content).not.toContain("outside text");
  expect(r.refused.map((x) => x.token)).toEqual(["@secret/key.txt", "@link.txt"]);
});

test("@server:uri asks the MCP resolver; an unknown server stays literal", async () => {
  const root = ws();
  const r = await resolveReferences("see @docs:guide/intro and @nope:x", {
    workspace: root,
    mcpResource: async (server, uri) => (server === "docs" ? `contents of ${uri}` : undefined),
  });
  expect(r.refs).toEqual([{ token: "@docs:guide/intro", kind: "mcp", target: "docs:guide/intro" }]);
  expect(r.content).toContain('<resource server="docs" uri="guide/intro">\ncontents of guide/intro\n</resource>');
  expect(r.content).not.toContain("<resource server=\"nope\"");
});

test("completion lists one directory level, folders first, without ignored or hidden entries", () => {
  const root = ws();
  expect(completeReference(root, "@").map((i) => i.value)).toEqual(["@src/"]);
  expect(completeReference(root, "@src/").map((i) => i.value)).toEqual(["@src/sub/", "@src/a.ts", "@src/b.ts"]);
  expect(completeReference(root, "@src/b").map((i) => i.label)).toEqual(["b.ts"]);
  expect(completeReference(root, "@.git").map((i) => i.value)).toEqual(["@.gitignore"]);
  expect(completeReference(root, "@../")).toEqual([]);
});
