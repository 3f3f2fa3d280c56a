import { afterEach, describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { EngineEvent } from "../../engine/types.ts";
import { call, exists, peakOverlap, text, toolNames, world, type World } from "./helpers.ts";

let w: World | undefined;
afterEach(async () => {
  await w?.close();
  w = undefined;
});

const allText = (req: { rawBody: string }) => req.rawBody;

describe("task tool: isolation and links", () => {
  test("the parent sees only the task and the final answer; the child session is linked, listed and resumable", async () => {
    w = await world((t) => {
      if (t.role === "parent") return t.results === 0 ? call("task", { description: "find secret", prompt: "Read secret.txt and tell me the number.", read_only: true }, "call_task_1") : text("The number is 42.");
      return t.results === 0 ? call("read_file", { path: "secret.txt" }) : text("FINAL: the secret number is 42");
    });
    writeFileSync(join(w.sb.workspace, "secret.txt"), "SECRET-CONTENT 42\n");
    const parent = await w.engine.createSession();
    const events: EngineEvent[] = [];
    parent.subscribe((e) => events.push(e));
    expect(await parent.submit("delegate the lookup")).toBe("done");

    const parentReqs = w.turns.filter((t) => t.role === "parent");
    expect(parentReqs.length).toBe(2);
    const second = allText(parentReqs[1]!.req);
    expect(second).toContain("FINAL: the secret number is 42");
    expect(second).toContain("Read secret.txt and tell me the number.");
    // The child's own traffic never reaches the parent's conversation.
    expect(second).not.toContain("SECRET-CONTENT");
    expect(second).not.toContain("read_file\",\"arguments");
    expect(parentReqs[1]!.req.body.messages.filter((m: { role: string }) => m.role === "tool").length).toBe(1);

    const result = events.find((e) => e.type === "tool_result" && e.name === "task") as Extract<EngineEvent, { type: "tool_result" }>;
    expect(result.ok).toBe(true);
    const childId = /session (\S+),/.exec(result.receipt ?? "")?.[1];
    expect(childId).toBeTruthy();
    const listed = (await w.engine.listSessions()).find((s) => s.id === childId);
    expect(listed?.parent).toEqual({ id: parent.id, callId: "call_task_1", agent: "find secret", depth: 1, readOnly: true });
    // The child's log holds its own work; it can be resumed like any session.
    const child = await w.engine.resumeSession(childId!);
    const h = child.history();
    expect(h.some((e) => e.type === "tool_result" && e.name === "read_file" && e.output.includes("SECRET-CONTENT"))).toBe(true);
    expect(h.some((e) => e.type === "assistant" && e.text.includes("FINAL"))).toBe(true);
    await child.close();
  });

  test("a read-only child cannot write even when told to: no writer tools, and bash refuses writing commands", async () => {
    w = await world((t) => {
      if (t.role === "parent") return t.results === 0 ? call("task", { description: "writer wannabe", prompt: "Create out.txt containing hello. You must write it.", read_only: true }) : text("ok");
      if (t.results === 0) {
        return {
          toolCalls: [
            { name: "write_file", arguments: { path: "out.txt", content: "hello" } },
            { name: "bash", arguments: { command: "echo hello > out.txt" } },
            { name: "bash", arguments: { command: "touch out2.txt" } },
          ],
        };
      }
      return text("I could not write anything.");
    });
    const parent = await w.engine.createSession();
    expect(await parent.submit("go")).toBe("done");
    expect(exists(join(w.sb.workspace, "out.txt"))).toBe(false);
    expect(exists(join(w.sb.workspace, "out2.txt"))).toBe(false);
    const childReqs = w.turns.filter((t) => t.role === "writer wannabe");
    const names = toolNames(childReqs[0]!.req);
    for (const writer of ["write_file", "edit_file", "multi_edit", "move_file", "todo_write", "web_fetch"]) expect(names).not.toContain(writer);
    expect(names).toContain("bash");
    const results = childReqs[1]!.req.body.messages.filter((m: { role: string }) => m.role === "tool").map((m: { content: string }) => m.content);
    expect(results[0]).toContain("unknown tool");
    expect(results[1]).toContain("read-only");
    expect(results[2]).toContain("read-only");
  });
});

describe("limits", () => {
  test("depth: with the default 2 a child may delegate once more, the grandchild gets no task tool; depth 0 turns it off", async () => {
    w = await world((t) => {
      if (t.role === "parent") return t.results === 0 ? call("task", { description: "child", prompt: "delegate further", read_only: true }) : text("done");
      if (t.role === "child") return t.results === 0 ? call("task", { description: "grandchild", prompt: "look around", read_only: true }) : text("child done");
      return text("grandchild done");
    });
    const parent = await w.engine.createSession();
    expect(await parent.submit("go")).toBe("done");
    expect(toolNames(w.turns.find((t) => t.role === "parent")!.req)).toContain("task");
    expect(toolNames(w.turns.find((t) => t.role === "child")!.req)).toContain("task");
    const gc = w.turns.find((t) => t.role === "grandchild")!;
    expect(gc).toBeTruthy();
    expect(toolNames(gc.req)).not.toContain("task");
    const sessions = await w.engine.listSessions();
    expect(sessions.find((s) => s.parent?.agent === "grandchild")?.parent?.depth).toBe(2);
    await w.close();

    w = await world(() => text("no delegation here"), { agent: { max_subagent_depth: 0 } });
    const s = await w.engine.createSession();
    await s.submit("go");
    expect(toolNames(w.turns[0]!.req)).not.toContain("task");
  });

  test("concurrency: five parallel tasks with max_subagent_concurrency = 2 never run more than two children at once", async () => {
    const tasks = [1, 2, 3, 4, 5].map((i) => ({ name: "task", arguments: { description: `job ${i}`, prompt: `job ${i}`, read_only: true } }));
    w = await world(
      (t) => (t.role === "parent" ? (t.results === 0 ? { toolCalls: tasks } : text("all done")) : text(`answer of ${t.role}`)),
      { agent: { max_subagent_concurrency: 2 }, delayMs: (t) => (t.role === "parent" ? 0 : 250) },
    );
    const parent = await w.engine.createSession();
    expect(await parent.submit("fan out")).toBe("done");
    const children = (r: string) => r.startsWith("job ");
    expect(w.turns.filter((t) => children(t.role)).length).toBe(5);
    const peak = peakOverlap(w.spans, children);
    expect(peak).toBeLessThanOrEqual(2);
    expect(peak).toBe(2);
    // Every answer came back, in call order.
    const last = w.turns.filter((t) => t.role === "parent").at(-1)!.req.body.messages.filter((m: { role: string }) => m.role === "tool");
    expect(last.map((m: { content: string }) => m.content)).toEqual([1, 2, 3, 4, 5].map((i) => `answer of job ${i}`));
  });
});

describe("parallel writers", () => {
  const writers = (paths: string[][]) => ({
    toolCalls: paths.map((p, i) => ({ name: "task", arguments: { description: `w${i}`, prompt: `write ${p.join(",")}`, write_paths: p } })),
  });
  const script = (paths: string[][]) => (t: { role: string; results: number }) => {
    if (t.role === "parent") return t.results === 0 ? writers(paths) : text("done");
    const i = Number(t.role.slice(1));
    return t.results === 0 ? call("write_file", { path: `${paths[i]![0]}/out.txt`, content: t.role }) : text(`wrote ${t.role}`);
  };
  const delay = (t: { role: string; results: number }) => (t.role !== "parent" && t.results === 0 ? 250 : 0);

  test("writers on non-overlapping write_paths run in parallel; overlapping ones run one after another", async () => {
    const apart = [["src/a"], ["src/b"]];
    w = await world(script(apart), { delayMs: delay });
    for (const d of ["src/a", "src/b"]) mkdirSync(join(w.sb.workspace, d), { recursive: true });
    const p = await w.engine.createSession();
    expect(await p.submit("write both")).toBe("done");
    expect(readFileSync(join(w.sb.workspace, "src/a/out.txt"), "utf8")).toBe("w0");
    expect(peakOverlap(w.spans, (r) => r.startsWith("w"))).toBe(2);
    await w.close();

    const nested = [["src"], ["src/b"]];
    w = await world(script(nested), { delayMs: delay });
    mkdirSync(join(w.sb.workspace, "src/b"), { recursive: true });
    const q = await w.engine.createSession();
    expect(await q.submit("write both")).toBe("done");
    expect(peakOverlap(w.spans, (r) => r.startsWith("w"))).toBe(1);
  });

  test("a writer may write only inside its declared write_paths", async () => {
    w = await world((t) => {
      if (t.role === "parent") return t.results === 0 ? call("task", { description: "confined", prompt: "write", write_paths: ["docs"] }) : text("done");
      return t.results === 0 ? call("write_file", { path: "src/x.txt", content: "no" }) : text("refused");
    });
    const p = await w.engine.createSession();
    await p.submit("go");
    expect(exists(join(w.sb.workspace, "src/x.txt"))).toBe(false);
    const child = w.turns.filter((t) => t.role === "confined")[1]!;
    expect(allText(child.req)).toContain("write_paths");
  });
});

describe("approvals from children", () => {
  const script = (t: { role: string; results: number }) => {
    if (t.role === "parent") return t.results === 0 ? call("task", { description: "scribe", prompt: "write a.txt" }) : text("parent done");
    return t.results === 0 ? call("write_file", { path: "a.txt", content: "from child" }) : text("child wrote a.txt");
  };

  test("surface in the parent's front end naming the child, and are answered through the parent's approve()", async () => {
    w = await world(script, { headless: false, mode: "ask" });
    const parent = await w.engine.createSession();
    const seen: Extract<EngineEvent, { type: "approval_request" }>[] = [];
    parent.subscribe((e) => {
      if (e.type !== "approval_request") return;
      seen.push(e);
      parent.approve(e.callId, "once");
    });
    expect(await parent.submit("go")).toBe("done");
    expect(seen.length).toBe(1);
    expect(seen[0]!.summary).toContain("[subagent scribe]");
    expect(seen[0]!.name).toBe("write_file");
    expect(readFileSync(join(w.sb.workspace, "a.txt"), "utf8")).toBe("from child");
  });

  test("a denial in the parent reaches the child; headless, the child's request fails closed", async () => {
    w = await world(script, { headless: false, mode: "ask" });
    const parent = await w.engine.createSession();
    parent.subscribe((e) => e.type === "approval_request" && parent.approve(e.callId, "deny"));
    await parent.submit("go");
    expect(exists(join(w.sb.workspace, "a.txt"))).toBe(false);
    await w.close();

    w = await world(script, { headless: true, mode: "ask" });
    const h = await w.engine.createSession();
    const asked: EngineEvent[] = [];
    h.subscribe((e) => e.type === "approval_request" && asked.push(e));
    await h.submit("go");
    expect(asked.length).toBe(0);
    expect(exists(join(w.sb.workspace, "a.txt"))).toBe(false);
  });
});

describe("profiles", () => {
  test("/name task runs a runAs: subagent skill as a child; the parent's message holds the task and the answer only", async () => {
    w = await world((t) => {
      if (t.role === "parent") return text("relayed");
      return t.results === 0 ? call("read_file", { path: "notes.txt" }) : text("REVIEW: notes look fine");
    });
    writeFileSync(join(w.sb.workspace, "notes.txt"), "NOTES-BODY\n");
    const dir = join(w.sb.home, "skills", "reviewer");
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "SKILL.md"), "---\nname: reviewer\ndescription: Review things\nrunAs: subagent\ninvocation: manual\ntools: [read_file, grep]\n---\nYou review files carefully.\n");
    const parent = await w.engine.createSession();
    expect(await parent.submit("/reviewer check notes.txt")).toBe("done");
    const child = w.turns.find((t) => t.role === "reviewer")!;
    expect(toolNames(child.req)).toEqual(["grep", "read_file"]);
    expect(allText(child.req)).toContain("You review files carefully.");
    const p = allText(w.turns.find((t) => t.role === "parent")!.req);
    expect(p).toContain("REVIEW: notes look fine");
    expect(p).toContain("check notes.txt");
    expect(p).not.toContain("NOTES-BODY");
  });
});
