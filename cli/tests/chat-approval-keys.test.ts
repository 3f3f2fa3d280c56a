// The terminal approval prompt's key rules, with a controlled clock: only a
// deliberate key from an empty input, after the prompt was visible and the
// user paused, answers; keys typed as text go to the input.
import { describe, expect, test } from "bun:test";
import { ApprovalPrompt, ARM_MS } from "../chat/approval.ts";
import type { PendingApproval } from "../chat/cards.ts";
import type { ApprovalDecision } from "../../core/engine/types.ts";

const req: PendingApproval = {
  callId: "c1", name: "bash", input: { command: "make" }, summary: "bash: make", suggestedRule: "Bash(make)",
  persistTo: { user: { path: "/h/config.toml", rule: "Bash(make)" }, project: { path: "/w/reasonix.toml", rule: "Bash(make)" } },
};

function rig() {
  let t = 1_000_000;
  const prompt = new ApprovalPrompt(() => {}, () => t);
  prompt.sync(req);
  const fed: string[] = [];
  const answers: ApprovalDecision[] = [];
  let onAnswer: (d: ApprovalDecision) => void = () => {};
  const answered = new Promise<ApprovalDecision>((r) => (onAnswer = r));
  const key = (data: string, composerEmpty = true) =>
    prompt.key(data, req, { composerEmpty, feed: (d) => fed.push(d), answer: (d) => (answers.push(d), onAnswer(d)) });
  return { key, fed, answers, answered, wait: (ms: number) => (t += ms) };
}

describe("approval keys", () => {
  test("before the prompt has been visible ARM_MS, a digit is text", () => {
    const r = rig();
    expect(r.key("1")).toBe(false);
    expect(r.answers).toEqual([]);
  });
  test("a key typed just before (no pause) keeps it unarmed; letters never answer", () => {
    const r = rig();
    r.wait(ARM_MS + 1);
    for (const k of "yapn ") expect(r.key(k)).toBe(false);
    expect(r.key("3")).toBe(false);
    expect(r.answers).toEqual([]);
  });
  test("armed, but the input holds text: digits, arrows and Enter are the input's", () => {
    const r = rig();
    r.wait(ARM_MS + 1);
    for (const k of ["2", "\x1b[B", "\r"]) expect(r.key(k, false)).toBe(false);
    expect(r.answers).toEqual([]);
  });
  test("armed and empty: a digit followed at once by a key is text (fed to the input first)", () => {
    const r = rig();
    r.wait(ARM_MS + 1);
    expect(r.key("2")).toBe(true);
    expect(r.key(" ")).toBe(false);
    expect(r.fed).toEqual(["2"]);
    expect(r.answers).toEqual([]);
  });
  test("armed and empty: a lone digit answers after the burst window; digit + Enter at once", async () => {
    const r = rig();
    r.wait(ARM_MS + 1);
    r.key("5");
    expect(await r.answered).toBe("deny");
    const s = rig();
    s.wait(ARM_MS + 1);
    s.key("4");
    s.key("\r");
    expect(s.answers).toEqual(["persist_project"]);
  });
  test("nothing is preselected: Enter alone answers nothing; ↓ then Enter picks the first choice", () => {
    const r = rig();
    r.wait(ARM_MS + 1);
    expect(r.key("\r")).toBe(true);
    expect(r.answers).toEqual([]);
    r.key("\x1b[B");
    r.key("\r");
    expect(r.answers).toEqual(["once"]);
  });
});
