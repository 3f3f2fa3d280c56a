// A subagent's progress reaches the parent's front ends as `subagent` events:
// started, each tool call, ended, for a `task` call (linked to it) and for
// `/name task` (which runs while the message is prepared, before turn_start).
import { afterEach, describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { subagentLine } from "../events.ts";
import type { EngineEvent } from "../../engine/types.ts";
import { call, text, world, type World } from "./helpers.ts";

let w: World | undefined;
afterEach(async () => {
  await w?.close();
  w = undefined;
});

type Sub = Extract<EngineEvent, { type: "subagent" }>;

describe("subagent progress events", () => {
  test("a task call: start, one event per child tool call (with its input), end; linked to the task call", async () => {
    w = await world((t) => {
      if (t.role === "parent") return t.results === 0 ? call("task", { description: "look around", prompt: "list and read", read_only: true }, "call_T") : text("done");
      if (t.results === 0) return { toolCalls: [{ name: "bash", arguments: { command: "ls -la" } }, { name: "read_file", arguments: { path: "a.txt" } }] };
      return text("seen");
    });
    writeFileSync(join(w.sb.workspace, "a.txt"), "A\n");
    const parent = await w.engine.createSession();
    const events: EngineEvent[] = [];
    parent.subscribe((e) => events.push(e));
    expect(await parent.submit("go")).toBe("done");
    const subs = events.filter((e): e is Sub => e.type === "subagent");
    expect(subs.map((e) => e.phase)).toEqual(["start", "tool", "tool", "end"]);
    for (const e of subs) {
      expect(e.name).toBe("look around");
      expect(e.callId).toBe("call_T");
      expect(e.sessionId).toBeTruthy();
    }
    expect(subs[0]!.readOnly).toBe(true);
    expect(subs[1]).toMatchObject({ tool: "bash", detail: "ls -la" });
    expect(subs[2]).toMatchObject({ tool: "read_file", detail: "a.txt" });
    expect(subs[3]!.reason).toBe("done");
    // They come between the task's tool_call and its tool_result.
    const callAt = events.findIndex((e) => e.type === "tool_call" && e.name === "task");
    const resultAt = events.findIndex((e) => e.type === "tool_result" && e.name === "task");
    expect(events.indexOf(subs[0]!)).toBeGreaterThan(callAt);
    expect(events.indexOf(subs[3]!)).toBeLessThan(resultAt);
    expect(subagentLine(subs[1]!)).toBe("  look around › bash: ls -la");
    // Live only: a resumed parent does not replay them.
    expect(parent.history().some((e) => e.type === "subagent")).toBe(false);
  });

  test("/name task: the profile's progress shows before the parent's turn starts", async () => {
    w = await world((t) => {
      if (t.role === "parent") return text("relayed");
      return t.results === 0 ? call("read_file", { path: "notes.txt" }) : text("REVIEW: fine");
    });
    writeFileSync(join(w.sb.workspace, "notes.txt"), "N\n");
    const dir = join(w.sb.home, "skills", "reviewer");
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "SKILL.md"), "---\nname: reviewer\ndescription: Review things\nrunAs: subagent\ninvocation: manual\ntools: [read_file]\n---\nReview.\n");
    const parent = await w.engine.createSession();
    const events: EngineEvent[] = [];
    parent.subscribe((e) => events.push(e));
    expect(await parent.submit("/reviewer check notes.txt")).toBe("done");
    const subs = events.filter((e): e is Sub => e.type === "subagent");
    expect(subs.map((e) => `${e.phase}:${e.tool ?? ""}`)).toEqual(["start:", "tool:read_file", "end:"]);
    expect(subs[0]!.name).toBe("reviewer");
    expect(subs[0]!.callId).toBeUndefined();
    const turnStart = events.findIndex((e) => e.type === "turn_start");
    expect(events.indexOf(subs[2]!)).toBeLessThan(turnStart);
    expect(subagentLine(subs[0]!)).toBe("↳ subagent reviewer started");
    expect(subagentLine(subs[2]!)).toBe("↳ subagent reviewer finished");
  });
});
