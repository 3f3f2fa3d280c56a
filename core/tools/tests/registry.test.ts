import { expect, test } from "bun:test";
import { registerBuiltinTools } from "../builtin/index.ts";
import { ToolRegistry } from "../registry.ts";

test("registerBuiltinTools registers the eighteen built-ins (goal mode's two, the background-job pair and ask included) with stable, well-formed schemas", () => {
  const r = new ToolRegistry();
  registerBuiltinTools(r);
  const tools = r.list();
  expect(tools.map((t) => t.name)).toEqual(["ask", "bash", "bash_kill", "bash_output", "code_index", "complete_step", "docs", "edit_file", "glob", "grep", "ls", "move_file", "multi_edit", "read_file", "todo_write", "update_goal", "web_fetch", "write_file"]);
  expect(Object.fromEntries(tools.map((t) => [t.name, t.kind]))).toEqual({
    ask: "meta", bash: "bash", bash_kill: "meta", bash_output: "meta", edit_file: "write", glob: "read", grep: "read", ls: "read", move_file: "write",
    multi_edit: "write", read_file: "read", todo_write: "meta", write_file: "write", docs: "read", web_fetch: "network",
    update_goal: "meta", complete_step: "meta", code_index: "read",
  });
  // The schema block must be byte-identical across registrations (prompt-cache prefix).
  const again = new ToolRegistry();
  registerBuiltinTools(again);
  expect(JSON.stringify(again.list().map((t) => t.inputSchema))).toBe(JSON.stringify(tools.map((t) => t.inputSchema)));
  for (const t of tools) {
    expect(t.inputSchema.type).toBe("object");
    expect(t.description.length).toBeGreaterThan(40);
    // Summaries and paths must not throw on junk input: they run before validation.
    expect(typeof t.summarize({} as never)).toBe("string");
    if (t.kind === "write" || t.kind === "read") expect(Array.isArray(t.paths?.({ path: "a", source: "a", destination: "b" } as never))).toBe(true);
  }
  expect(() => registerBuiltinTools(r)).toThrow(/registered twice/);
});
