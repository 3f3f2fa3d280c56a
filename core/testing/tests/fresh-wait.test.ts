// The shared waits of the tests (core/testing/fresh-wait.ts) cannot be
// satisfied by what was there before the action.
import { expect, test } from "bun:test";
import { after, causedSince, occurrences, pollFor } from "../fresh-wait.ts";

test("occurrences counts a string's and a RegExp's matches (with or without the g flag)", () => {
  expect(occurrences("ready\nready\nnot", "ready")).toBe(2);
  expect(occurrences("aaaa", "aa")).toBe(2);
  expect(occurrences("anything", "")).toBe(0);
  expect(occurrences("ctx 0% · ctx 12%", /ctx \d+%/)).toBe(2);
  expect(occurrences("ctx 0% · ctx 12%", /ctx [1-9]\d*%/g)).toBe(1);
});

test("text counts as caused only when it occurs more often than before the action", () => {
  const before = { counted: "menu: args-prompt", checked: "menu: args-prompt" };
  const c = causedSince("args-prompt", before);
  expect(c.counted("menu: args-prompt")).toBe(false);
  expect(c.counted("menu: args-prompt\n→ args-prompt")).toBe(true);
});

test("a condition that already held before the action is an error at once, naming it", () => {
  expect(() => causedSince((s) => s.includes("mode ask"), { counted: "", checked: "… mode ask …" })).toThrow(/already satisfied before the action/);
  const c = causedSince((s) => s.includes("mode auto"), { counted: "", checked: "… mode ask …" });
  expect(c.checked("… mode auto …")).toBe(true);
});

test("after: only items past the given sequence number or id count", async () => {
  const items = [1, 2, 3].map((n) => ({ seq: n, item: { type: n === 3 ? "done" : "progress", n } }));
  expect(await after("done", () => items, 1, (x) => x.type === "done")).toEqual({ type: "done", n: 3 });
  expect(await after("progress", () => items, 1, (x) => x.type === "progress")).toEqual({ type: "progress", n: 2 });
  await expect(after("progress", () => items, 2, (x) => x.type === "progress", { timeoutMs: 100 })).rejects.toThrow(/timed out waiting for progress/);
  const byId = ["a", "b"].map((id) => ({ seq: id, item: id }));
  expect(await after("b", () => byId, "a")).toBe("b");
  await expect(after("x", () => byId, "zz", undefined, { timeoutMs: 100 })).rejects.toThrow(/zz is not among the items seen/);
});

test("pollFor: the value once it passes; after the deadline, an error that shows the last value", async () => {
  let n = 0;
  expect(await pollFor("three", () => ++n, (v) => v >= 3, { everyMs: 1 })).toBe(3);
  await expect(pollFor("never", () => "last screen", () => false, { timeoutMs: 50, everyMs: 10 })).rejects.toThrow("timed out waiting for never; last seen:\nlast screen");
});
