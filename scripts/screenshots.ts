// Screenshots of the web UI (1440×900 and 390×844, light and dark) and of the
// terminal chat (80×24, light and dark palettes) with the same scripted
// conversation: a Markdown answer, then an edit waiting for approval.
//
//   bun scripts/screenshots.ts [--out DIR] [--bin PATH]
//
// Needs /usr/bin/chromium and tmux. Files go to test-artifacts/screenshots/
// (gitignored: never commit them). --bin runs the serve and the chat from a
// compiled binary (e.g. dist/…/reasonix) instead of the sources. Exit 0 when every
// picture was written, 1 otherwise.
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import type { Browser } from "playwright-core";
import { startScriptedOpenAI, type ScriptStep } from "../core/testing/scripted-llm.ts";
import { CHROMIUM, LAUNCH_ARGS, say, startRig } from "../core/serve/tests/ui-helpers.ts";
import { hasTmux, ready, startChat } from "../cli/tests/chat-helpers.ts";
import { makeCliEnv } from "../cli/tests/run-helpers.ts";
import { ansiToHtml, DARK, LIGHT } from "./screenshots/ansi-html.ts";

const { values: args } = parseArgs({ options: { out: { type: "string" }, bin: { type: "string" } } });
const out = resolve(args.out ?? join(import.meta.dir, "..", "test-artifacts", "screenshots"));
mkdirSync(out, { recursive: true });

const ANSWER = [
  "## Plan",
  "",
  "The parser drops the last field when a line ends with a comma. Three steps:",
  "",
  "1. Keep empty trailing fields in `split_row`.",
  "2. Add a test for `a,b,` → `['a', 'b', '']`.",
  "3. Run the suite.",
  "",
  "| file | change |",
  "|---|---|",
  "| `csv.py` | keep the empty field |",
  "| `test_csv.py` | one new case |",
  "",
  "```python",
  "def split_row(line):",
  "    return line.rstrip('\\n').split(',')",
  "```",
].join("\n");

const SOURCE = "def split_row(line):\n    return [f for f in line.rstrip('\\n').split(',') if f]\n";
const script = (): ScriptStep[] => [
  { text: ANSWER, reasoning: "The filter drops empty strings, including the trailing one." },
  { toolCalls: [{ name: "edit_file", arguments: { path: "csv.py", old_string: "[f for f in line.rstrip('\\n').split(',') if f]", new_string: "line.rstrip('\\n').split(',')" } }] },
];

const written: string[] = [];
const failed: string[] = [];

async function web(): Promise<void> {
  const rig = await startRig(args.bin ? { bin: resolve(args.bin) } : {});
  try {
    writeFileSync(join(rig.workspace, "csv.py"), SOURCE);
    rig.llm.push(...script());
    const page = await rig.open();
    await say(page, "why does the parser drop the last field?");
    await page.waitForSelector(".msg.assistant >> text=Run the suite.");
    await page.waitForFunction(() => !document.querySelector(".msg.assistant.streaming") && !document.querySelector("#cancel:not([hidden])"));
    await say(page, "fix it");
    await page.getByRole("button", { name: "Allow once" }).waitFor();
    const path = new URL(page.url()).pathname;
    for (const [w, h] of [[1440, 900], [390, 844]] as const) {
      for (const dark of [false, true]) {
        const p = await rig.open(path, { viewport: { width: w, height: h }, dark });
        await p.getByRole("button", { name: "Allow once" }).waitFor();
        const file = join(out, `web-${w}x${h}-${dark ? "dark" : "light"}.png`);
        await p.screenshot({ path: file });
        written.push(file);
        await p.context().close();
      }
    }
  } finally {
    await rig.close();
  }
}

async function chat(browser: Browser): Promise<void> {
  if (!hasTmux()) {
    failed.push("SKIPPED terminal chat screenshots: tmux is not installed");
    return;
  }
  const llm = await startScriptedOpenAI(script());
  const ce = makeCliEnv(llm.url);
  writeFileSync(join(ce.workspace, "csv.py"), SOURCE);
  const pane = startChat(ce, ["chat"], { cols: 80, rows: 24, ...(args.bin ? { bin: [resolve(args.bin)] } : {}) });
  try {
    await ready(pane);
    pane.send("why does the parser drop the last field?");
    await pane.waitFor("Run the suite.");
    pane.send("fix it");
    await pane.waitFor("↑↓ then Enter to answer");
    const screen = capture(pane.socket);
    for (const [name, palette] of [["light", LIGHT], ["dark", DARK]] as const) {
      const html = ansiToHtml(screen, 80, 24, palette);
      writeFileSync(join(out, `chat-80x24-${name}.html`), html);
      const page = await browser.newPage({ viewport: { width: 800, height: 600 } });
      await page.setContent(html);
      const file = join(out, `chat-80x24-${name}.png`);
      await page.locator("pre").screenshot({ path: file });
      written.push(file);
      await page.close();
    }
  } finally {
    pane.kill();
    await llm.close();
    ce.cleanup();
  }
}

/** The visible screen with its escapes (colours, bold…), as tmux holds it. */
function capture(socket: string): string {
  const r = Bun.spawnSync(["tmux", "-L", socket, "capture-pane", "-e", "-p", "-t", "chat"]);
  return r.stdout.toString();
}

if (!existsSync(CHROMIUM)) {
  console.error(`SKIPPED screenshots: ${CHROMIUM} not found (Debian's chromium package)`);
  process.exit(1);
}
const { chromium } = await import("playwright-core");
const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: LAUNCH_ARGS });
for (const [what, job] of [["web UI", web], ["terminal chat", () => chat(browser)]] as const) {
  try {
    await job();
  } catch (e) {
    failed.push(`${what}: ${e instanceof Error ? e.message : String(e)}`);
  }
}
await browser.close();
for (const f of written) console.log(f);
for (const f of failed) console.error(f);
process.exit(failed.length ? 1 : 0);
