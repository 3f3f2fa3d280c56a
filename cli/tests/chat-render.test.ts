// The chat's pure pieces: streaming markdown splits, row rewrites, cards and
// diffs, and the transcript's handling of events (unknown ones included).
import { describe, expect, test } from "bun:test";
import { callSummary, changeLines, decisionForLine, diffLines, plainPaint } from "../chat/cards.ts";
import { ApprovalPrompt } from "../chat/approval.ts";
import { atToken, pathItems } from "../chat/complete.ts";
import { LiveRenderer, rewriteLine } from "../chat/live.ts";
import { MarkdownStream, openFence, renderMarkdown, safeSplit } from "../chat/markdown-stream.ts";
import { Transcript } from "../chat/transcript.ts";
import { mkdtempSync, mkdirSync, realpathSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const strip = (s: string) => s.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, "");

describe("streaming markdown", () => {
  test("splits after blank lines, never inside a code fence", () => {
    expect(safeSplit("para one\n\npara two")).toBe("para one\n\n".length);
    expect(safeSplit("```\ncode\n\nmore code\n")).toBe(0);
    expect(safeSplit("```\ncode\n\nmore\n```\nafter")).toBe("```\ncode\n\nmore\n```\n".length);
    expect(openFence("```ts\nx\n")).toBe(true);
    expect(openFence("```ts\nx\n```\n")).toBe(false);
  });

  test("finished blocks are committed once; the tail holds back an unfinished line", () => {
    const m = new MarkdownStream();
    expect(m.push("# Title\n\nfirst para", 60).map(strip)).toEqual(["Title"]);
    expect(m.tail(60)).toEqual([]); // "first para" is unfinished
    m.push(" goes on\n", 60);
    expect(m.tail(60).map(strip)).toEqual(["", "first para goes on"]);
    const rest = m.finish(60).map(strip);
    expect(rest).toEqual(["", "first para goes on"]);
  });
});

describe("markdown in the terminal", () => {
  const render = (text: string, width = 60) => renderMarkdown(text, width).map(strip);
  test("headings of every level show their text, not the markdown hashes", () => {
    const out = render("# One\n\n## Two\n\n### Three\n\n#### Four\n\n###### Six");
    expect(out.filter((l) => l.trim())).toEqual(["One", "Two", "Three", "Four", "Six"]);
  });
  test("a fenced code block shows its code, not the ``` lines, also inside a list and a quote", () => {
    const out = render("Intro.\n\n```ts\nconst x = 1;\n```\n\n- item\n\n  ```\n  in list\n  ```\n\n> ```\n> quoted\n> ```\n\nAfter.");
    expect(out.join("\n")).not.toContain("```");
    expect(out).toContain("  const x = 1;");
    expect(out.some((l) => l.includes("in list"))).toBe(true);
    expect(out.some((l) => l.includes("quoted"))).toBe(true);
    expect(out.at(-1)).toBe("After.");
  });
  test("a wrapped list item continues under its text (hanging indent), nested and numbered too", () => {
    const words = "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu";
    const out = render(`- ${words}\n- short\n  - ${words}\n\n10. ${words}`, 30);
    const first = out.indexOf("- alpha beta gamma delta");
    expect(first).toBe(0);
    // Every row up to the next bullet is indented under the item's text.
    const block = (start: number, hang: number) => {
      const rows = [out[start]!];
      for (let i = start + 1; i < out.length && out[i]!.trim() && !/^\s*(-|\d+\.) /.test(out[i]!); i++) rows.push(out[i]!);
      expect(rows.length).toBeGreaterThan(1);
      for (const r of rows.slice(1)) expect(r).toMatch(new RegExp(`^ {${hang}}\\S`));
      expect(rows.map((r) => r.trim().replace(/^(-|\d+\.) /, "")).join(" ")).toBe(words);
      for (const r of rows) expect(r.length).toBeLessThanOrEqual(30);
    };
    block(0, 2);
    block(out.findIndex((l) => l.startsWith("  - alpha")), 4);
    block(out.findIndex((l) => l.startsWith("10. alpha")), 4);
  });
});

describe("streamed equals rendered at once", () => {
  const stream = (text: string, step: number, width: number) => {
    const m = new MarkdownStream();
    const out: string[] = [];
    for (let i = 0; i < text.length; i += step) out.push(...m.push(text.slice(i, i + step), width));
    return [...out, ...m.finish(width)];
  };
  test("a long code block is committed in pieces that join up exactly", () => {
    const code = Array.from({ length: 60 }, (_, i) => `const v${i} = ${i};`).join("\n");
    const text = `Intro.\n\n\`\`\`ts\n${code}\n\`\`\`\n\nAfter.`;
    for (const step of [1, 4, 37]) expect(stream(text, step, 80).map(strip)).toEqual(renderMarkdown(text, 80).map(strip));
  });
  test("a long list is committed in pieces with no gap", () => {
    const text = `Items:\n\n${Array.from({ length: 70 }, (_, i) => `- item ${i}`).join("\n")}\n\nDone.`;
    for (const step of [2, 9]) expect(stream(text, step, 60).map(strip)).toEqual(renderMarkdown(text, 60).map(strip));
  });
  test("a long list and a long table reach the scrollback row by row, only the newest line stays live", () => {
    const list = `Items:\n\n${Array.from({ length: 100 }, (_, i) => `${i + 1}. item ${i + 1} ${"word ".repeat(20)}`).join("\n")}\n`;
    const table = `| n | name |\n|---|---|\n${Array.from({ length: 100 }, (_, i) => `| ${i + 100} | row ${i + 100} |`).join("\n")}\n`;
    for (const [text, last] of [[list, "item 99 "], [table, "row 198"]] as const) {
      const m = new MarkdownStream();
      const out: string[] = [];
      for (let i = 0; i < text.length; i += 5) {
        out.push(...m.push(text.slice(i, i + 5), 80));
        expect(m.tail(80).length).toBeLessThanOrEqual(14);
      }
      expect(out.map(strip).join("\n")).toContain(last);
    }
  });
  test("headings, lists and tables", () => {
    const text = "# A\n\npara one\n\n- x\n- y\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\nend";
    expect(stream(text, 3, 60).map(strip)).toEqual(renderMarkdown(text, 60).map(strip));
  });
});

describe("row rewrites", () => {
  test("only the changed end of a row is written, with the prefix's styles re-applied", () => {
    expect(rewriteLine("\x1b[2mworking 4s · Esc\x1b[22m", "\x1b[2mworking 5s · Esc\x1b[22m")).toBe("\x1b[9G\x1b[2m5s · Esc\x1b[22m\x1b[K");
    expect(rewriteLine("", "new row")).toBe("\rnew row");
    expect(rewriteLine("abc", "xyz")).toBe("\r\x1b[2Kxyz");
  });

  test("the renderer writes finished lines once and never clears the screen or scrollback", () => {
    let out = "";
    let live = ["status"];
    const r = new LiveRenderer({ write: (s) => (out += s), columns: 40, rows: 10 }, () => live, 0);
    r.frame();
    for (let i = 0; i < 30; i++) {
      r.commit([`line ${i}`]);
      live = ["tail", `status ${i}`];
      r.frame();
    }
    for (let i = 0; i < 30; i++) expect(out.match(new RegExp(`line ${i}(?!\\d)`, "g"))).toHaveLength(1);
    expect(out).not.toContain("\x1b[2J");
    expect(out).not.toContain("\x1b[3J");
    expect(r.bytes).toBe(Buffer.byteLength(out));
    // Nothing changed: nothing written.
    const before = out.length;
    r.frame();
    expect(out.length).toBe(before);
  });
});

describe("renderer and a shorter screen", () => {
  test("a live region taller than the new screen is redrawn from the screen's top, never moving above it", () => {
    let out = "";
    const screen = { write: (s: string) => (out += s), columns: 40, rows: 20 };
    const r = new LiveRenderer(screen, () => Array.from({ length: 15 }, (_, i) => `row ${i}`), 0);
    r.frame();
    out = "";
    screen.rows = 8;
    r.frame();
    const ups = [...out.matchAll(/\x1b\[(\d+)A/g)].map((m) => Number(m[1]));
    expect(Math.max(...ups)).toBeLessThanOrEqual(7);
    expect(out).toContain("\x1b[J");
    // Never an erase-below at a row's start (at the screen's top-left tmux moves the whole screen into its history).
    expect(out).not.toContain("\r\x1b[J");
    // Rows 0–6 went to the scrollback: they are not drawn again.
    expect(out).not.toMatch(/row [0-6]\b/);
    expect(r.holding).toBe(true);
  });
});

describe("cards", () => {
  test("summaries, diffs and the approval prompt", () => {
    expect(callSummary("bash", { command: "npm  test" })).toBe("npm test");
    expect(callSummary("move_file", { source: "a", destination: "b" })).toBe("a → b");
    expect(diffLines(plainPaint, "edit_file", { old_string: "a\nb\nc", new_string: "a\nB\nc" }, 80)).toEqual(["  - b", "  + B"]);
    expect(diffLines(plainPaint, "write_file", { content: "x\ny\n" }, 80)).toEqual(["  + x", "  + y"]);
    const persistTo = { user: { path: "/h/.reasonix/config.toml", rule: "Bash(ls)" }, project: { path: "/w/reasonix.toml", rule: "Bash(ls)" } };
    const lines = new ApprovalPrompt(() => {}).render(plainPaint, { callId: "1", name: "bash", input: { command: "ls", description: "list files" }, summary: "bash: ls", suggestedRule: "Bash(ls)", persistTo }, 100, 30, true, 0);
    expect(lines.slice(0, 3)).toEqual(["? Allow bash", "  list files", "  $ ls"]);
    expect(lines).toContain("  the rule: Bash(ls)");
    expect(lines).toContain("  3. Yes, always: save the rule in /h/.reasonix/config.toml (your config, every project)");
    expect(lines).toContain("  4. Yes, always in this project: save it in /w/reasonix.toml");
    // Another tool's whole input is shown, not only its summary.
    const web = new ApprovalPrompt(() => {}).render(plainPaint, { callId: "2", name: "web_fetch", input: { url: "https://example.com/a" }, summary: "fetch example.com", suggestedRule: "WebFetch(domain:example.com)" }, 100, 30, true, 0);
    expect(web).toContain('    "url": "https://example.com/a"');
    // The engine's structured diff wins over one made from the input.
    const diff = [{ path: "a.ts", kind: "modify" as const, added: 1, removed: 1, hunks: [{ oldStart: 3, oldLines: 3, newStart: 3, newLines: 3, lines: [" keep", "-old", "+new", " keep2"] }] }];
    expect(changeLines(plainPaint, "edit_file", { old_string: "x", new_string: "y" }, diff, 80)).toEqual(["    keep", "  - old", "  + new", "    keep2"]);
    expect(changeLines(plainPaint, "edit_file", { old_string: "x", new_string: "y" }, undefined, 80)).toEqual(["  - x", "  + y"]);
    expect(decisionForLine("Y")).toBe("once");
    expect(decisionForLine("project")).toBe("persist_project");
    expect(decisionForLine("yes please")).toBeUndefined();
  });
});

describe("transcript", () => {
  test("events of unknown types are ignored; a retry after committed text says so", () => {
    const committed: string[] = [];
    const t = new Transcript(plainPaint, (l) => committed.push(...l), () => 60);
    t.event({ type: "brand_new_event", whatever: 1 } as any);
    t.event({ type: "text_delta", text: "first block\n\nsecond" });
    t.event({ type: "retry", attempt: 1, delayMs: 500, reason: "overloaded" });
    expect(committed.map(strip)).toContain("first block");
    expect(committed.join("\n")).toContain("discarded");
    expect(t.live(60).join("\n")).toContain("retrying in 0.5s");
    expect(t.live(60).join("\n")).not.toContain("second");
    t.event({ type: "turn_end", turn: 1, reason: "some_new_reason" as any });
    expect(committed.at(-1)).toContain("some_new_reason");
  });
});

describe("transcript reasoning", () => {
  const count = (lines: string[], re: RegExp) => lines.filter((l) => re.test(strip(l))).length;
  test("streamed reasoning is committed once per step; reasoning given only with the final message still is", () => {
    const committed: string[] = [];
    const t = new Transcript(plainPaint, (l) => committed.push(...l), () => 80);
    t.event({ type: "reasoning_delta", text: "think A" });
    t.event({ type: "text_delta", text: "answer A\n\n" });
    t.event({ type: "assistant", text: "answer A", reasoning: "think A" } as any);
    // A step that sends its reasoning only in the final message.
    t.event({ type: "assistant", text: "answer B", reasoning: "think B" } as any);
    t.event({ type: "turn_end", turn: 1, reason: "done" } as any);
    expect(count(committed, /^∴ think A/)).toBe(1);
    expect(count(committed, /^∴ think B/)).toBe(1);
  });
});

describe("@ completion", () => {
  test("one directory level at a time, never outside the workspace", async () => {
    const ws = realpathSync(mkdtempSync(join(tmpdir(), "rx-complete-")));
    mkdirSync(join(ws, "src"));
    writeFileSync(join(ws, "src/app.ts"), "");
    writeFileSync(join(ws, "readme.md"), "");
    expect(atToken("look at @sr")).toBe("@sr");
    expect(atToken("mail a@b")).toBeUndefined();
    expect((await pathItems(ws, "@")).map((i) => i.value)).toEqual(["@src/", "@readme.md"]);
    expect((await pathItems(ws, "@src/a")).map((i) => i.value)).toEqual(["@src/app.ts"]);
    expect(await pathItems(ws, "@../")).toEqual([]);
  });
});

describe("untrusted text cannot drive the terminal", () => {
  test("escape and control characters from the model and tools are removed; tabs become spaces", () => {
    const committed: string[] = [];
    const t = new Transcript(plainPaint, (l) => committed.push(...l), () => 80);
    const evil = "ok \x1b]52;c;ZXZpbA==\x07 \x1b[2J\x1b[3J \u009b2J \x07bell\tTab\n\n";
    t.event({ type: "text_delta", text: evil });
    t.event({ type: "tool_call", callId: "1", name: "bash", input: { command: "echo \x1b]0;title\x07" } });
    t.event({ type: "tool_result", callId: "1", name: "bash", ok: false, output: "boom \x1b[31mred\nmore \x1b[H" });
    t.event({ type: "assistant", text: evil });
    const all = committed.join("\n") + t.live(80).join("\n");
    expect(all).not.toContain("\x1b]");
    expect(all).not.toContain("\x1b[2J");
    expect(all).not.toContain("\x1b[3J");
    expect(all).not.toContain("\x1b[H");
    expect(all).not.toContain("\u009b");
    expect(all).not.toContain("\x07");
    expect(all).toContain("bell    Tab");
  });
});

describe("transcript view (Ctrl-T)", () => {
  test("every card with all its output, from the folded transcript; scrolls and pins to the end", async () => {
    const { foldTranscript } = await import("../../core/protocol/fold.ts");
    const { Pager, transcriptLines } = await import("../chat/pager.ts");
    const out = Array.from({ length: 30 }, (_, i) => `line-${i + 1}`).join("\n");
    const t = foldTranscript([
      { type: "turn_start", turn: 1, prompt: "go" },
      { type: "tool_call", callId: "1", name: "bash", input: { command: "seq" } },
      { type: "tool_result", callId: "1", name: "bash", ok: true, output: out },
      { type: "assistant", text: "Done.", reasoning: "think\nmore" },
      { type: "turn_end", turn: 1, reason: "done" },
    ] as any);
    const lines = transcriptLines(plainPaint, t, 60).map(strip);
    expect(lines).toContain("› go");
    expect(lines).toContain("✓ bash seq");
    for (const l of ["  line-1", "  line-30", "  more", "Done."]) expect(lines).toContain(l);
    const p = new Pager(plainPaint, "transcript", () => lines);
    const end = p.render(60, 10);
    expect(end.at(-1)).toBe("Done.");
    expect(end[0]).toContain(`of ${lines.length}`);
    p.key("\x1b[H", 9); // Home
    expect(p.render(60, 10).slice(1, 3)).toEqual(lines.slice(0, 2));
    expect(p.key("q", 9)).toBe(true);
  });

  test("the renderer draws a view on the alternate screen and holds finished lines until it closes", () => {
    let out = "";
    const r = new LiveRenderer({ write: (s) => (out += s), columns: 40, rows: 10 }, () => ["status"], 0);
    r.frame();
    r.overlay(() => ["view row"]);
    r.commit(["finished while the view was open"]);
    r.frame();
    expect(out).toContain("\x1b[?1049h");
    expect(out).toContain("view row");
    expect(out).not.toContain("finished while");
    r.overlay(undefined);
    r.frame();
    expect(out.indexOf("finished while")).toBeGreaterThan(out.indexOf("\x1b[?1049l"));
  });
});

describe("renderer and a narrower screen", () => {
  const upAfterNarrowing = (reflows: boolean) => {
    let out = "";
    const screen = { write: (s: string) => (out += s), columns: 80, rows: 40, reflows };
    const r = new LiveRenderer(screen, () => ["─".repeat(79), "text", "─".repeat(79), "status"], 0);
    // Finished output fills the screen above the region: the region's last line is on the screen's last row.
    r.commit(Array.from({ length: 40 }, (_, i) => `done ${i}`));
    r.frame();
    out = "";
    screen.columns = 40;
    r.frame();
    return Number(/^\x1b\[(\d+)A/.exec(out)?.[1] ?? 0);
  };
  test("where the terminal re-wraps, the redraw starts at the re-wrapped top of the old region; where it cuts, one row per line", () => {
    // Above the last line: two 79-column borders (two rows each at 40 columns) and one short line.
    expect(upAfterNarrowing(true)).toBe(5);
    expect(upAfterNarrowing(false)).toBe(3);
  });

  test("lines the re-wrap pushes off the screen's top are not drawn again while live, nor written again when committed", () => {
    let out = "";
    const screen = { write: (s: string) => (out += s), columns: 80, rows: 10, reflows: true };
    const wide = (i: number) => `wide ${i} ${"x".repeat(70)}`;
    let live = [...Array.from({ length: 8 }, (_, i) => wide(i)), "status"];
    const r = new LiveRenderer(screen, () => live, 0);
    r.frame();
    expect(r.holding).toBe(false);
    out = "";
    // At 40 columns each wide line takes two rows: 16 rows above the cursor's row 8 — 8 rows
    // (lines 0–3) went to the scrollback; the redraw starts at line 4, 8 rows up.
    screen.columns = 40;
    r.frame();
    expect(r.holding).toBe(true);
    expect(/^(?:\x1b\[\?2026h)?\x1b\[(\d+)A/.exec(out)?.[1]).toBe("8");
    for (let i = 0; i < 4; i++) expect(out).not.toContain(`wide ${i} `);
    expect(out).toContain("wide 4 ");
    // Lines 0–5 finish: 0–3 are in the scrollback already; 4 and 5 are written as finished lines.
    out = "";
    live = [...Array.from({ length: 2 }, (_, i) => wide(i + 6)), "status"];
    r.commit(Array.from({ length: 6 }, (_, i) => wide(i)));
    r.frame();
    for (let i = 0; i < 4; i++) expect(out).not.toContain(`wide ${i} `);
    expect(r.holding).toBe(false);
  });

  test("a live region that no longer starts with the pushed lines draws all it has", () => {
    let out = "";
    const screen = { write: (s: string) => (out += s), columns: 80, rows: 8, reflows: true };
    let live = [...Array.from({ length: 5 }, (_, i) => `card ${i} ${"y".repeat(70)}`), "status"];
    const r = new LiveRenderer(screen, () => live, 0);
    r.frame();
    screen.columns = 40;
    r.frame();
    expect(r.holding).toBe(true);
    out = "";
    live = ["answered", "status"];
    r.frame();
    expect(r.holding).toBe(false);
    expect(out).toContain("answered");
  });
});
