// The terminal question card's key rules (the model's `ask`), with a
// controlled clock: keys count only from an empty input once the card was
// visible and the user paused; a letter, Space or digit another key follows
// at once was text (it goes to the input); arrows/j/k move, Space toggles,
// Enter submits, 1–9 pick, Esc dismisses, and one's own words go into a
// field opened on purpose.
import { describe, expect, test } from "bun:test";
import { ARM_MS, BURST_MS } from "../chat/approval.ts";
import { answerFromLine, QuestionPrompt, type PendingQuestion } from "../chat/question.ts";
import type { QuestionAnswer } from "../../core/engine/types.ts";

const single: PendingQuestion = { callId: "q1", question: "Which?", options: [{ label: "A" }, { label: "B" }, { label: "C" }], multi: false, allowText: false };
const multi: PendingQuestion = { ...single, callId: "q2", multi: true, allowText: true };

function rig(q: PendingQuestion) {
  let t = 1_000_000;
  const prompt = new QuestionPrompt(() => {}, () => t);
  prompt.sync(q);
  const fed: string[] = [];
  const answers: QuestionAnswer[] = [];
  const key = (data: string, composerEmpty = true) => prompt.key(data, q, { composerEmpty, feed: (d) => fed.push(d), answer: (a) => answers.push(a) });
  return { key, fed, answers, prompt, wait: (ms: number) => (t += ms) };
}
const burst = () => Bun.sleep(BURST_MS + 50);

describe("question keys", () => {
  test("unarmed (just shown, or the user is typing): letters, digits and Space are the input's", () => {
    const r = rig(single);
    for (const k of ["j", "1", " ", "k"]) expect(r.key(k)).toBe(false);
    r.wait(ARM_MS + 1);
    expect(r.key("x")).toBe(false);
    expect(r.key("2")).toBe(false);
    expect(r.answers).toEqual([]);
  });
  test("armed but the input holds text: nothing is the card's, not even Esc", () => {
    const r = rig(single);
    r.wait(ARM_MS + 1);
    for (const k of ["j", "2", "\r", "\x1b[B", "\x1b"]) expect(r.key(k, false)).toBe(false);
    expect(r.answers).toEqual([]);
  });
  test("a card key followed at once by another key was text: it is fed to the input first", () => {
    const r = rig(single);
    r.wait(ARM_MS + 1);
    expect(r.key("j")).toBe(true);
    expect(r.key("u")).toBe(false);
    expect(r.fed).toEqual(["j"]);
    expect(r.key("2")).toBe(false);
    expect(r.answers).toEqual([]);
  });
  test("single choice: j j then Enter picks the second; a lone digit picks after the burst window", async () => {
    const r = rig(single);
    r.wait(ARM_MS + 1);
    r.key("j");
    await burst();
    r.key("j");
    await burst();
    r.key("\r");
    expect(r.answers).toEqual([{ choices: ["B"] }]);
    const s = rig(single);
    s.wait(ARM_MS + 1);
    s.key("3");
    await burst();
    expect(s.answers).toEqual([{ choices: ["C"] }]);
  });
  test("nothing is preselected: Enter alone answers nothing", () => {
    const r = rig(single);
    r.wait(ARM_MS + 1);
    expect(r.key("\r")).toBe(true);
    expect(r.answers).toEqual([]);
  });
  test("several: digits and Space toggle, the own-answer field takes typed text, Enter submits all", async () => {
    const r = rig(multi);
    r.wait(ARM_MS + 1);
    r.key("1");
    await burst();
    r.key("\x1b[B");
    r.key("\x1b[B");
    r.key(" ");
    await burst();
    r.key("\x1b[B");
    r.key("\r");
    expect(r.prompt.writing).toBe(true);
    for (const k of ["and", " ", "docs", "x", "\x7f"]) expect(r.key(k)).toBe(true);
    expect(r.answers).toEqual([]);
    r.key("\r");
    expect(r.answers).toEqual([{ choices: ["A", "C"], text: "and docs" }]);
  });
  test("Esc dismisses from an empty input (armed or not)", () => {
    const r = rig(single);
    expect(r.key("\x1b")).toBe(true);
    expect(r.answers).toEqual([{ dismissed: true }]);
  });
  test("line mode: numbers pick, other words are the user's own, - dismisses", () => {
    expect(answerFromLine(multi, "1, 3")).toEqual({ choices: ["A", "C"] });
    expect(answerFromLine(multi, "neither")).toEqual({ choices: [], text: "neither" });
    expect(answerFromLine(multi, "-")).toEqual({ dismissed: true });
  });
});
