// Pure pieces: prompt content → turn text, turn ends → stop reasons, tool calls → kinds/locations/diffs.
import { expect, test } from "bun:test";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promptText } from "../prompt.ts";
import { stopReason, UpdateTranslator } from "../updates.ts";

test("prompt content: images and unknown blocks are refused naming the block; empty prompts too", () => {
  expect(() => promptText([{ type: "text", text: "a" }, { type: "image", data: "x", mimeType: "image/png" }])).toThrow(/prompt\[1\]: image content is not supported/);
  expect(() => promptText([{ type: "weird" } as any])).toThrow(/prompt\[0\]\.type/);
  expect(() => promptText([])).toThrow(/non-empty/);
  expect(() => promptText([{ type: "text", text: "  " }])).toThrow(/no text/);
  expect(promptText([{ type: "resource", resource: { uri: "file:///a%20b.ts", blob: "AAAA", mimeType: "application/octet-stream" } }])).toBe(
    "[binary resource /a b.ts (application/octet-stream) not included]",
  );
});

test("every turn end has a stop reason except errors", () => {
  expect(["done", "empty", "denied", "cancelled", "max_steps", "length", "refusal", "content_filter", "error"].map((r) => stopReason(r as any))).toEqual([
    "end_turn", "end_turn", "end_turn", "cancelled", "max_turn_requests", "max_tokens", "refusal", "refusal", undefined,
  ]);
});

test("tool calls: kinds, absolute locations with the read offset, and a write's before-image taken before it runs", () => {
  const ws = mkdtempSync(join(tmpdir(), "acp-tr-"));
  writeFileSync(join(ws, "f.txt"), "old\n");
  const tr = new UpdateTranslator(ws);
  const read = tr.toolCall("c1", "read_file", { path: "src/a.ts", offset: 40 });
  expect(read).toMatchObject({ kind: "read", locations: [{ path: join(ws, "src/a.ts"), line: 40 }] });
  expect(tr.toolCall("c2", "bash", { command: "ls" }).kind).toBe("execute");
  expect(tr.toolCall("c3", "move_file", { source: "a", destination: "/abs/b" }).locations).toEqual([{ path: join(ws, "a") }, { path: "/abs/b" }]);
  const w = tr.toolCall("c4", "write_file", { path: "f.txt", content: "new\n" });
  expect(w.content).toEqual([{ type: "diff", path: join(ws, "f.txt"), oldText: "old\n", newText: "new\n" }]);
  writeFileSync(join(ws, "f.txt"), "new\n"); // the write lands
  const done = tr.toolResult("c4", "write_file", true, "Replaced f.txt") as any;
  expect(done.content[1]).toEqual({ type: "diff", path: join(ws, "f.txt"), oldText: "old\n", newText: "new\n" });
  const edit = tr.toolCall("c5", "multi_edit", { path: "f.txt", edits: [{ old_string: "a", new_string: "b" }, { old_string: "c", new_string: "d" }] });
  expect(edit.content?.map((c: any) => [c.oldText, c.newText])).toEqual([["a", "b"], ["c", "d"]]);
});
