// Approvals in the terminal chat are deliberate acts (real tmux pane, scripted
// model): keys typed as text never answer one, the whole command or diff can
// be read before deciding, and "allow always" says which file it writes.
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { approvalArmed as armed, chatFixture, hasTmux, ready, type Pane } from "./chat-helpers.ts";

const skip = !hasTmux();
if (skip) console.warn("SKIPPED terminal chat approval tests: tmux is not installed (apt-get install tmux)");

const f = chatFixture();

/** The composer's text: the rows between its two border lines. */
const input = (screen: string): string => {
  const rows = screen.split("\n");
  const borders = rows.flatMap((r, i) => (/^─{20,}/.test(r) ? [i] : []));
  if (borders.length < 2) return "";
  const [a, b] = borders.slice(-2) as [number, number];
  return rows.slice(a + 1, b).map((r) => r.trim()).join(" ").replace(/\s+/g, " ").trim();
};

/** Type like a person: one key at a time, GAP ms apart (this is the action, not a wait). */
async function typeSlowly(p: Pane, text: string, gap = 60): Promise<void> {
  for (const ch of text) {
    p.type(ch);
    await Bun.sleep(gap);
  }
}

const CALC = "def add(a, b):\n    return a - b\n";
const EDIT = { name: "edit_file", arguments: { path: "calc.py", old_string: "return a - b", new_string: "return a + b" } };

/** Nothing granted: the file as it was, no rule in the user's config or in the project's reasonix.toml. */
function nothingGranted(): void {
  expect(readFileSync(join(f.ce.workspace, "calc.py"), "utf8")).toBe(CALC);
  expect(existsSync(join(f.ce.workspace, "reasonix.toml"))).toBe(false);
  expect(readFileSync(join(f.ce.home, "config.toml"), "utf8")).not.toContain("Edit(");
}

describe.skipIf(skip)("terminal chat: typing never answers an approval", () => {
  test("a sentence typed while the edit approval arrives stays text (y/a/p/n, Space, a leading digit); nothing is granted", async () => {
    const { promise: held, resolve: release } = Promise.withResolvers<void>();
    await f.setup([{ toolCalls: [EDIT], until: held }, { text: "ok, stopped" }]);
    writeFileSync(join(f.ce.workspace, "calc.py"), CALC);
    const p = f.chat(["chat"], { cols: 100, rows: 30 });
    await ready(p);
    p.send("fix calc.py");
    await p.waitFor("› fix calc.py", { all: true });
    // The user starts typing; the approval arrives mid-sentence.
    await typeSlowly(p, "please stop");
    release();
    await p.waitFor("Allow edit_file");
    await typeSlowly(p, ", no wait, also add a test: yes and pay attention");
    await p.waitFor((s) => input(s).endsWith("pay attention"));
    let s = p.screen();
    expect(input(s)).toBe("please stop, no wait, also add a test: yes and pay attention");
    expect(s).toContain("Allow edit_file");
    expect(s).not.toMatch(/allowed|denied:/);
    nothingGranted();
    // A burst (as a fast typist or a paste sends it) from an empty input, even after a pause: a leading digit is text.
    p.keys("C-c");
    await p.waitFor((x) => input(x) === "" && x.includes("press Ctrl-C again"));
    await armed(p);
    p.type("2 asks and a plan");
    await p.waitFor((x) => input(x) === "2 asks and a plan");
    expect(p.screen()).toContain("Allow edit_file");
    nothingGranted();
    // From an empty input, after a pause, a digit answers: 5 refuses.
    p.keys("C-u");
    await p.waitFor((x) => input(x) === "");
    await armed(p);
    p.type("5");
    await p.waitFor("denied: ");
    nothingGranted();
  });

  test("the approval arriving on an empty input: typing at once is text, Space and Enter grant nothing", async () => {
    const { promise: held, resolve: release } = Promise.withResolvers<void>();
    await f.setup([{ toolCalls: [EDIT], until: held }, { text: "fine" }]);
    writeFileSync(join(f.ce.workspace, "calc.py"), CALC);
    const p = f.chat(["chat"], { cols: 100, rows: 30 });
    await ready(p);
    p.send("fix calc.py");
    await p.waitFor("› fix calc.py", { all: true });
    release();
    await p.waitFor("Allow edit_file");
    p.keys("Space", "Enter");
    await typeSlowly(p, "a guard clause please");
    await p.waitFor((s) => input(s).endsWith("please"));
    expect(input(p.screen())).toBe("a guard clause please");
    expect(p.screen()).toContain("Allow edit_file");
    nothingGranted();
    // Enter sends the message (it steers the turn), never answers.
    p.keys("Enter");
    await p.waitFor((s) => input(s) === "");
    expect(p.screen()).toContain("Allow edit_file");
    nothingGranted();
    // Nothing is preselected: Enter on an empty input after a pause answers nothing either.
    await armed(p);
    p.keys("Enter");
    p.keys("Down");
    await p.waitFor(/› 1\. Yes, once/);
    nothingGranted();
    p.keys("Down", "Down", "Down", "Down");
    await p.waitFor(/› 5\. No/);
    p.keys("Enter");
    await p.waitFor("denied: ");
    nothingGranted();
  });
});

describe.skipIf(skip)("terminal chat: the whole command or diff before deciding", () => {
  test("a command longer than two terminal widths is shown whole at 80 columns, with its description", async () => {
    const command = "python3 -m unittest -q && echo 'tidying up the build directory before the release is cut so nothing stale ships' && find . -name '*.pyc' -delete && rm -rf ~/.ssh";
    expect(command.length).toBeGreaterThan(160);
    const { promise: held, resolve: release } = Promise.withResolvers<void>();
    await f.setup([{ toolCalls: [{ name: "bash", arguments: { command, description: "run the tests and tidy up" } }], until: held }, { text: "done" }]);
    const p = f.chat(["chat"], { cols: 80, rows: 24 });
    await ready(p);
    p.send("test it");
    await p.waitFor("› test it", { all: true });
    release();
    const s = await p.waitFor("Allow bash");
    expect(s).toContain("run the tests and tidy up");
    const rows = s.split("\n");
    const start = rows.findIndex((r) => r.includes("$ python3"));
    const end = rows.findIndex((r, i) => i > start && r.includes("the rule:"));
    expect(start).toBeGreaterThan(-1);
    const shown = rows.slice(start, end).map((r) => r.trim()).join(" ").replace(/^\$ /, "");
    expect(shown).toBe(command);
    expect(shown.endsWith("&& rm -rf ~/.ssh")).toBe(true);
    expect(rows.slice(0, end).join("\n")).not.toContain("…");
    await armed(p);
    p.type("5");
    await p.waitFor("denied: ");
  });

  test("a 40-line diff is reachable whole at 80×24 (file name, line numbers; PgDn pages; Ctrl-O prints it, not another tool's output)", async () => {
    const old = Array.from({ length: 40 }, (_, i) => `value_${i + 1} = ${i + 1}`).join("\n") + "\n";
    const neu = Array.from({ length: 40 }, (_, i) => `value_${i + 1} = ${(i + 1) * 10}`).join("\n") + "\n";
    const { promise: held, resolve: release } = Promise.withResolvers<void>();
    await f.setup([
      { toolCalls: [{ name: "read_file", arguments: { path: "other.txt" } }] },
      { toolCalls: [{ name: "edit_file", arguments: { path: "big.py", old_string: old, new_string: neu } }], until: held },
      { text: "done" },
    ]);
    writeFileSync(join(f.ce.workspace, "big.py"), old);
    writeFileSync(join(f.ce.workspace, "other.txt"), "OTHER TOOL OUTPUT\n");
    const p = f.chat(["chat"], { cols: 80, rows: 24 });
    await ready(p);
    p.send("scale the values");
    await p.waitFor("› scale the values", { all: true });
    release();
    let s = await p.waitFor("Allow edit_file big.py");
    expect(s).toContain("modify big.py (+40 −40)");
    const seen = new Set<string>();
    const collect = (screen: string) => {
      for (const m of screen.matchAll(/^\s*(\d+) ([+-]) (value_\d+ = \d+)$/gm)) seen.add(`${m[1]} ${m[2]} ${m[3]}`);
    };
    collect(s);
    // Page down until the last line is shown; each page is a state the key caused.
    const atEnd = (x: string) => /lines \d+–(\d+) of \1 /.test(x);
    for (let i = 0; i < 40 && !atEnd(s); i++) {
      const before = /lines (\d+)–/.exec(s)?.[1];
      p.keys("PageDown");
      s = await p.waitFor((x) => /lines (\d+)–/.exec(x)?.[1] !== before);
      collect(s);
    }
    for (let i = 1; i <= 40; i++) {
      expect(seen.has(`${i} - value_${i} = ${i}`)).toBe(true);
      expect(seen.has(`${i} + value_${i} = ${i * 10}`)).toBe(true);
    }
    // Ctrl-O prints the whole change above, not the earlier read_file output.
    p.keys("C-o");
    await p.waitFor((x) => x.includes("40 + value_40 = 400") && x.includes("── edit"), { all: true });
    expect(p.all()).not.toContain("OTHER TOOL OUTPUT");
    await armed(p);
    p.type("5");
    await p.waitFor("denied: ");
    expect(readFileSync(join(f.ce.workspace, "big.py"), "utf8")).toBe(old);
  });
});

describe.skipIf(skip)("terminal chat: where 'allow always' saves", () => {
  test("the choices name both files; 3 writes the user's config (rule anchored to the workspace), 4 the project's reasonix.toml", async () => {
    await f.setup([
      { toolCalls: [{ name: "write_file", arguments: { path: "a.txt", content: "a\n" } }] },
      { text: "wrote a" },
      { toolCalls: [{ name: "write_file", arguments: { path: "b.txt", content: "b\n" } }] },
      { text: "wrote b" },
    ]);
    const p = f.chat(["chat"], { cols: 160, rows: 30 });
    await ready(p);
    p.send("write a");
    let s = await p.waitFor("Allow write_file");
    const userFile = join(f.ce.home, "config.toml");
    const projectFile = join(f.ce.workspace, "reasonix.toml");
    const flat = s.replace(/\n\s*/g, " ");
    expect(flat).toContain(`the rule: Edit(a.txt) (saved in your config as Edit(${f.ce.workspace}/a.txt))`);
    expect(flat).toContain(`3. Yes, always: save the rule in ${userFile} (your config, every project)`);
    expect(flat).toContain(`4. Yes, always in this project: save it in ${projectFile}`);
    await armed(p);
    p.type("3");
    s = await p.waitFor("wrote a");
    expect(s.replace(/\n\s*/g, " ")).toContain(`added Edit(${f.ce.workspace}/a.txt) to ${userFile}`);
    expect(readFileSync(userFile, "utf8")).toContain(`"Edit(${f.ce.workspace}/a.txt)"`);
    expect(existsSync(projectFile)).toBe(false);
    p.send("write b");
    await p.waitFor("Allow write_file b.txt");
    await armed(p);
    p.type("4");
    s = await p.waitFor("wrote b");
    expect(readFileSync(projectFile, "utf8")).toContain('"Edit(b.txt)"');
    expect(readFileSync(userFile, "utf8")).not.toContain("b.txt");
  });
});
