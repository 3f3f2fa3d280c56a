// The terminal-screenshot renderer (scripts/screenshots/ansi-html.ts): SGR
// escapes from `tmux capture-pane -e` become styled spans; text is escaped.
import { expect, test } from "bun:test";
import { ansiToHtml, DARK, LIGHT } from "../screenshots/ansi-html.ts";

const pre = (html: string) => /<pre>([\s\S]*)<\/pre>/.exec(html)![1];

test("bold, 16, 256 and true colours, inverse and reset; < & > are text", () => {
  const screen = "\x1b[1mAllow\x1b[0m <a&b>\n\x1b[31mred\x1b[39m \x1b[38;5;196mx\x1b[0m \x1b[38;2;1;2;3my\x1b[0m \x1b[7minv\x1b[0m\n";
  expect(pre(ansiToHtml(screen, 80, 24, DARK))).toBe(
    `<span style="font-weight:700">Allow</span> &lt;a&amp;b&gt;\n<span style="color:#cd3131">red</span> <span style="color:rgb(255,0,0)">x</span> <span style="color:rgb(1,2,3)">y</span> <span style="color:#1e1e1e;background:#d4d4d4">inv</span>`,
  );
});

test("the palette sets the page's colours and the cell grid", () => {
  const html = ansiToHtml("hi", 80, 24, LIGHT);
  expect(html).toContain("background:#ffffff");
  expect(html).toContain("width:80ch");
  expect(html).toContain("height:30em");
});
