// The chat's moves in the compiled binary (tmux): /theme recolours the accent
// at once and saves it (REASONIX_THEME_STYLE for one run), Ctrl+O and
// /verbose unfold reasoning from then on, /clear asks before dropping the
// context (not in YOLO), Ctrl+L clears only the screen, Ctrl+D on an empty
// composer quits, PgUp and Ctrl+Home open the transcript view, and a running
// background job shows in the status line.
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { chatFixture, compiledChat, quit, ready } from "./chat-helpers.ts";

const { skip, binary } = compiledChat("chat moves test");
const f = chatFixture();

const sessionIds = (s: string) => [...new Set(s.match(/session \d{8}-\d{6}-[0-9a-f]{6}/g) ?? [])];
/**
 * The foreground colour (SGR code: "36", "38;5;28", "" for the default) `text`
 * is drawn in, the last place it is on screen: capture-pane -e writes a colour
 * only where it changes, so it is tracked from the top of the capture.
 */
function colourOf(raw: string, text: string): string | undefined {
  let fg = "";
  let plain = "";
  const at: string[] = [];
  for (const m of raw.matchAll(/\x1b\[([0-9;]*)m|([^\x1b]+)|\x1b/g)) {
    if (m[2] !== undefined) {
      plain += m[2];
      for (let i = 0; i < m[2].length; i++) at.push(fg);
      continue;
    }
    const ps = (m[1] ?? "").split(";");
    for (let i = 0; i < ps.length; i++) {
      const n = Number(ps[i] || 0);
      if (n === 0 || n === 39) fg = "";
      else if ((n >= 30 && n <= 37) || (n >= 90 && n <= 97)) fg = String(n);
      else if (n === 38) {
        fg = ps.slice(i, i + 3).join(";");
        i += 2;
      } else if (n === 48) i += 2;
    }
  }
  const i = plain.lastIndexOf(text);
  return i < 0 ? undefined : at[i];
}

describe.skipIf(skip)("compiled binary: chat moves", () => {
  test("/theme forest recolours the accent at once and saves [ui] theme_style; /theme light takes the light shade; REASONIX_THEME_STYLE sets it for one run", async () => {
    await f.setup([{ text: "first answer" }, { text: "second answer" }, { text: "third answer" }, { text: "env answer" }]);
    const p = f.chat([], { bin: [binary()] });
    await ready(p);
    p.send("hello");
    await p.waitFor("first answer");
    expect(colourOf(p.raw(), "› hello")).toBe("36");
    p.send("/theme forest");
    await p.waitFor("theme auto · style forest");
    expect(colourOf(p.raw(), "theme auto · style forest")).toBe("32");
    p.send("again");
    await p.waitFor("second answer");
    expect(colourOf(p.raw(), "› again")).toBe("32");
    p.send("/theme light");
    await p.waitFor("theme light · style forest");
    p.send("lighter");
    await p.waitFor("third answer");
    expect(colourOf(p.raw(), "› lighter")).toBe("38;5;28");
    const cfg = readFileSync(join(f.ce.home, "config.toml"), "utf8");
    expect(cfg).toMatch(/\[ui\][^[]*theme_style = "forest"/);
    expect(cfg).toMatch(/\[ui\][^[]*theme = "light"/);
    await quit(p);

    // One run with another style: nothing saved, /theme says where it comes from.
    const q = f.chat([], { bin: [binary()], env: { REASONIX_THEME_STYLE: "rose", REASONIX_THEME: "dark" } });
    await ready(q);
    q.send("env");
    await q.waitFor("env answer");
    expect(colourOf(q.raw(), "› env")).toBe("95");
    q.send("/theme ");
    await q.waitFor("REASONIX_THEME and REASONIX_THEME_STYLE set for this run");
    q.keys("Escape");
    await q.waitFor((s) => !s.includes("Esc cancels"));
    expect(readFileSync(join(f.ce.home, "config.toml"), "utf8")).toBe(cfg);
    await quit(q);
  });

  test("Ctrl+O turns verbose on (the last reasoning in full, and the next turn's too) and off again; /verbose does the same; PgUp and Ctrl+Home open the transcript view", async () => {
    await f.setup([
      { reasoning: "First I think.\nThen I decide.", text: "Answer one." },
      { reasoning: "Second thought.\nSecond detail.", text: "Answer two." },
      { reasoning: "Third idea.\nThird detail.", text: "Answer three." },
      { reasoning: "Fourth idea.\nFourth detail.", text: "Answer four." },
    ]);
    const p = f.chat([], { bin: [binary()] });
    await ready(p);
    p.send("one");
    let s = await p.waitFor("Answer one.");
    expect(s).toMatch(/∴ First I think\. … +\(\d+ chars · Ctrl-O shows it\)/);
    expect(s).not.toContain("Then I decide.");
    p.keys("C-o");
    s = await p.waitFor("verbose on");
    expect(s).toContain("Then I decide.");
    p.send("two");
    s = await p.waitFor("Answer two.");
    expect(s).toContain("Second detail.");
    p.keys("C-o");
    await p.waitFor("verbose off");
    p.send("three");
    s = await p.waitFor("Answer three.");
    expect(s).toMatch(/∴ Third idea\. … +\(\d+ chars · Ctrl-O shows it\)/);
    expect(s).not.toContain("Third detail.");
    p.send("/verbose ");
    s = await p.waitFor("verbose on");
    expect(s).toContain("Third detail.");
    p.send("four");
    s = await p.waitFor("Answer four.");
    expect(s).toContain("Fourth detail.");

    // PgUp and Ctrl+Home: the transcript view (the chat cannot move the terminal's scrollback); q closes it.
    p.keys("PPage");
    await p.waitFor((x) => x.includes("transcript ·") && x.includes("q closes"));
    p.keys("q");
    await p.waitFor((x) => !x.includes("transcript ·") && x.includes("mode ask"));
    p.keys("C-Home");
    await p.waitFor((x) => x.includes("transcript ·") && x.includes("› one"));
    p.keys("q");
    await p.waitFor((x) => !x.includes("transcript ·"));
    await quit(p);
  });

  test("/clear asks first (No keeps the conversation, Yes starts a new one); in YOLO it clears at once; Ctrl+L clears the screen only", async () => {
    await f.setup([{ text: "kept answer" }, { text: "after no" }, { text: "fresh one" }]);
    const p = f.chat([], { bin: [binary()] });
    await ready(p);
    p.send("remember me");
    await p.waitFor("kept answer");
    const first = sessionIds(p.all());
    expect(first).toHaveLength(1);

    // Ctrl+L: the screen is clean, the conversation goes on.
    p.keys("C-l");
    await p.waitFor((s) => !s.includes("kept answer") && s.includes("mode ask"));
    p.send("still here?");
    await p.waitFor("after no");
    expect(f.llm.chatRequests()[1]!.body.messages.filter((m: any) => m.role === "user")).toHaveLength(2);

    p.send("/clear ");
    await p.waitFor("Clear the context and start a new conversation?");
    p.keys("Down");
    await p.waitFor("→ No, keep it");
    p.keys("Enter");
    await p.waitFor("kept the conversation");
    expect(sessionIds(p.all())).toEqual(first);

    p.send("/clear ");
    await p.waitFor("Clear the context and start a new conversation?");
    p.keys("Enter");
    const s = await p.waitFor((x) => sessionIds(x).length === 1 && !sessionIds(x).includes(first[0]!) && !x.includes("Clear the context and"));
    expect(s).not.toContain("kept answer");
    p.send("fresh");
    await p.waitFor("fresh one");
    expect(f.llm.chatRequests()[2]!.body.messages.filter((m: any) => m.role === "user")).toHaveLength(1);
    const second = sessionIds(p.screen());

    p.keys("C-y");
    await p.waitFor("mode yolo");
    p.send("/clear ");
    await p.waitFor((x) => sessionIds(x).length === 1 && !sessionIds(x).includes(second[0]!));
    await quit(p);
  });

  test("Ctrl+D quits from an empty composer (with text it deletes forward); a running background job shows in the status line", async () => {
    await f.setup([
      { toolCalls: [{ name: "bash", arguments: { command: "echo up; while true; do sleep 0.2; done # moves-job", run_in_background: true } }] },
      { text: "job started" },
      { toolCalls: [{ name: "bash_kill", arguments: { job_id: "job-1" } }] },
      { text: "job stopped" },
    ]);
    const p = f.chat(["chat", "--permission-mode", "yolo"], { bin: [binary()] });
    await ready(p);
    p.send("start it");
    await p.waitFor("job started");
    await p.waitFor("1 job running (/jobs)");
    p.send("stop it");
    await p.waitFor("job stopped");
    await p.waitFor((s) => !s.includes("job running"));
    // Ctrl+D with text in the composer edits it: the text and the chat stay.
    p.type("abc");
    await p.waitFor("abc");
    p.keys("Home", "C-d");
    await p.waitFor((s) => /^bc\s*$/m.test(s));
    p.keys("End", "C-u");
    await p.waitFor((s) => !/^bc\s*$/m.test(s));
    p.keys("C-d");
    const all = await p.waitFor("[exit 0]", { all: true });
    expect(all).toContain("continue with: reasonix chat --resume");
  });
});
