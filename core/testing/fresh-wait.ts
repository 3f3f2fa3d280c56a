// Waits that the past cannot satisfy. A test acts, then waits for what its
// action caused; text already on screen (or an event already received) before
// the action must not end the wait, or the test reads a state its action has
// not reached yet and fails (or passes) by chance.
//
// - Text (a string or RegExp) counts as caused once it occurs MORE often than
//   it did just before the action.
// - A condition (a function) must have been false just before the action: one
//   that already held is a wait that proves nothing, and fails at once saying so.
// - Events with a sequence number or id: wait for one after the last one seen
//   before the action (`after`).

import { existsSync, readFileSync } from "node:fs";

export type Want = string | RegExp | ((text: string) => boolean);

/** How often `t` occurs in `text` (a RegExp counts all its matches). */
export function occurrences(text: string, t: string | RegExp): number {
  if (typeof t === "string") {
    if (t === "") return 0;
    let n = 0;
    for (let i = text.indexOf(t); i >= 0; i = text.indexOf(t, i + t.length)) n++;
    return n;
  }
  const re = new RegExp(t.source, t.flags.includes("g") ? t.flags : t.flags + "g");
  return [...text.matchAll(re)].length;
}

export const describeWant = (want: Want): string => (typeof want === "function" ? `condition ${want.toString().slice(0, 200)}` : String(want));

/**
 * The test for "`want` is caused by what happened since `before`": more
 * occurrences of text, or a condition that did not hold before. Throws at once
 * for a condition that already held (the wait could only be satisfied by the past).
 */
export function causedSince(want: Want, before: { counted: string; checked: string }): { counted(now: string): boolean; checked(now: string): boolean } {
  if (typeof want === "function") {
    if (want(before.checked)) throw new Error(`this wait is already satisfied before the action (${describeWant(want)}): wait for a state the action changes; the screen before the action was:\n${before.checked}`);
    return { counted: () => true, checked: want };
  }
  const n = occurrences(before.counted, want);
  return { counted: (now) => occurrences(now, want) > n, checked: () => true };
}

/** Poll `read` every `everyMs` until `ok`, or throw with the last value after `timeoutMs` (generous: CI has 2 cores shared by every suite). */
export async function pollFor<T>(what: string, read: () => T | Promise<T>, ok: (v: T) => boolean, opts: { timeoutMs?: number; everyMs?: number; show?: (v: T) => string } = {}): Promise<T> {
  const deadline = Date.now() + (opts.timeoutMs ?? 30_000);
  let v: T | undefined;
  for (;;) {
    v = await read();
    if (ok(v)) return v;
    if (Date.now() >= deadline) break;
    await Bun.sleep(opts.everyMs ?? 50);
  }
  throw new Error(`timed out waiting for ${what}; last seen:\n${opts.show ? opts.show(v as T) : String(v)}`);
}

/**
 * Wait for the first item after `since` (a sequence number or id seen before
 * the action; undefined = from the start) that matches `ok`. `list` returns
 * every item so far, oldest first, with its `seq` (number or string id).
 */
export async function after<T>(what: string, list: () => { seq: number | string; item: T }[] | Promise<{ seq: number | string; item: T }[]>, since: number | string | undefined, ok: (item: T) => boolean = () => true, opts: { timeoutMs?: number; everyMs?: number } = {}): Promise<T> {
  const fresh = (all: { seq: number | string; item: T }[]) => {
    // A numeric `since` is a sequence number (items after it); a string is an id (items listed after it).
    const start = since === undefined ? 0 : typeof since === "number" ? all.findIndex((e) => Number(e.seq) > since) : all.findIndex((e) => e.seq === since) + 1;
    if (typeof since === "string" && start === 0) throw new Error(`waiting for ${what}: ${since} is not among the items seen`);
    return start < 0 ? undefined : all.slice(start).find((e) => ok(e.item));
  };
  const hit = await pollFor(what, list, (all) => fresh(all) !== undefined, { ...opts, show: (all) => JSON.stringify(all.slice(-5), null, 1) });
  return fresh(hit)!.item;
}

/**
 * Resolves true once the REASONIX_TRACE file `file` (core/trace.ts), fresh for this
 * test, has a line for `mark`, written by the process under test; false after
 * `timeoutMs`. Never rejects: a scripted server's step may wait on it (`cutWhen`)
 * and goes ahead when it never comes (the test then fails on what is missing).
 */
export async function traceMarked(file: string, mark: string, timeoutMs = 30_000): Promise<boolean> {
  const line = `{"mark":${JSON.stringify(mark)},`;
  const read = () => (existsSync(file) ? readFileSync(file, "utf8") : "");
  try {
    await pollFor(`the trace mark ${mark} in ${file}`, read, (t) => t.includes(line), { timeoutMs, everyMs: 10 });
    return true;
  } catch {
    return false;
  }
}
