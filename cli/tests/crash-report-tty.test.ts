// `reasonix report` on a terminal (tmux): it shows the newest report and asks
// before sending; `n` sends nothing and keeps it, `y` sends it to the
// collector and deletes it here.
import { expect, test } from "bun:test";
import { hasTmux, startChat, type Pane } from "./chat-helpers.ts";
import { box, collector, crash, NEVER, reportFiles, type Box } from "./crash-helpers.ts";
import type { CliEnv } from "./run-helpers.ts";

const tmuxOk = hasTmux();
if (!tmuxOk) console.log("SKIPPED crash-report-tty: tmux is not installed");

const paneEnv = (b: Box): CliEnv => ({
  home: b.rx,
  workspace: b.ws,
  env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: b.root, REASONIX_HOME: b.rx, NO_COLOR: "1" },
  cleanup: () => {},
});

async function prompted(b: Box): Promise<Pane> {
  const pane = startChat(paneEnv(b), ["report"], { env: { NO_COLOR: "1" } });
  await pane.waitForCurrent("? [y/N]");
  return pane;
}

test.skipIf(!tmuxOk)("n at the prompt: nothing is sent, the report stays", async () => {
  const c = collector(200);
  const b = box(`[report]\nendpoint = "${c.url}"\n`);
  let pane: Pane | undefined;
  try {
    await crash(b, "run", ["run", "hello"]);
    const files = reportFiles(b);
    pane = await prompted(b);
    expect(pane.all()).toContain(`Send this report to ${c.url}? [y/N]`);
    // The first line names the local file; what follows is what would be sent.
    const shown = pane.all().split("\n").slice(1).join("\n");
    for (const bad of NEVER(b)) expect(shown).not.toContain(bad);
    pane.send("n");
    await pane.waitFor("[exit 0]", { all: true });
    expect(pane.all()).toContain("not sent; it stays in");
    expect(c.bodies).toHaveLength(0);
    expect(reportFiles(b)).toEqual(files);
  } finally { pane?.kill(); c.stop(); }
});

test.skipIf(!tmuxOk)("y at the prompt: sent to the collector, then deleted here", async () => {
  const c = collector(202);
  const b = box(`[report]\nendpoint = "${c.url}"\n`);
  let pane: Pane | undefined;
  try {
    await crash(b, "serve", ["serve", "--addr", "127.0.0.1:0"]);
    pane = await prompted(b);
    pane.send("y");
    await pane.waitFor("[exit 0]", { all: true });
    expect(pane.all()).toContain("sent crash report");
    expect(c.bodies).toHaveLength(1);
    expect(JSON.parse(c.bodies[0]!).frontEnd).toBe("serve");
    expect(reportFiles(b)).toEqual([]);
  } finally { pane?.kill(); c.stop(); }
});
