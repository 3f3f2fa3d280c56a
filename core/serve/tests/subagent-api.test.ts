// A subagent's approvals through the serve API (what the web UI uses): the
// child's request surfaces on the parent session's event stream naming the
// child, POST /api/sessions/:parent/approvals/:callId (the relayed id,
// URL-encoded) answers it, and the child's progress events come along.
import { afterEach, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Envelope } from "../events.ts";
import { startApiRig, type ApiRig } from "./api-rig.ts";
import { waitFor } from "./helpers.ts";

setDefaultTimeout(60_000);

let rig: ApiRig | undefined;
let ws: WebSocket | undefined;
afterEach(async () => {
  ws?.close();
  await rig?.close();
  rig = ws = undefined;
});

async function listen(r: ApiRig, token: string) {
  ws = new WebSocket(`ws://${r.server.addr}/api/ws`, { headers: { authorization: `Bearer ${token}` } } as never);
  const got: Envelope[] = [];
  ws.onmessage = (m) => got.push(...[JSON.parse(String(m.data))].flat());
  await new Promise<void>((resolve, reject) => {
    ws!.onopen = () => resolve();
    ws!.onerror = () => reject(new Error("websocket failed"));
  });
  const events = (id: string) => got.filter((e) => "event" in e && e.sessionId === id).map((e) => (e as Extract<Envelope, { event: unknown }>).event);
  return { events, until: <T>(what: string, f: () => T | undefined) => waitFor(what, f, 20_000) };
}

const script = (r: ApiRig) => {
  r.llm.push({ toolCalls: [{ name: "task", arguments: { description: "scribe", prompt: "write a.txt" } }] });
  r.llm.push({ toolCalls: [{ name: "write_file", arguments: { path: "a.txt", content: "from child\n" } }] });
  r.llm.push({ text: "child wrote a.txt" });
  r.llm.push({ text: "parent done" });
};

for (const [decision, written] of [["once", true], ["deny", false]] as const) {
  test(`a child's approval surfaces on the parent's stream naming the child; answered ${decision} through the parent's approvals route`, async () => {
    rig = await startApiRig("subagent");
    const live = await listen(rig, "subagent-token-0123456789abcdefghijklmn");
    script(rig);
    const { body } = await rig.call("/api/sessions", "POST", {});
    const id = body.id as string;
    expect((await rig.call(`/api/sessions/${id}/prompt`, "POST", { prompt: "delegate" })).status).toBe(202);
    const req = await live.until("approval_request", () => live.events(id).find((e) => e.type === "approval_request"));
    if (req.type !== "approval_request") throw new Error("unreachable");
    expect(req.summary).toContain("[subagent scribe]");
    expect(req.name).toBe("write_file");
    // The relayed id names the child's session and its call.
    expect(req.callId).toContain(":");
    const answer = await rig.call(`/api/sessions/${id}/approvals/${encodeURIComponent(req.callId)}`, "POST", { decision });
    expect(answer.status).toBe(200);
    const end = await live.until("turn_end", () => live.events(id).find((e) => e.type === "turn_end"));
    expect(end.type === "turn_end" && end.reason).toBe("done");
    const events = live.events(id);
    expect(events.some((e) => e.type === "approval_resolved" && e.callId === req.callId && e.decision === decision)).toBe(true);
    expect(events.filter((e) => e.type === "subagent").map((e) => (e.type === "subagent" ? e.phase : ""))).toEqual(["start", "tool", "end"]);
    const workspace = body.workspace as string;
    expect(existsSync(join(workspace, "a.txt"))).toBe(written);
    if (written) expect(readFileSync(join(workspace, "a.txt"), "utf8")).toBe("from child\n");
  });
}
