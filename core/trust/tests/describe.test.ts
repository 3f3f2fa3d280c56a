// What the trust question shows is what approving covers: every project input
// with what it can do (hooks that approve tool calls or run commands, MCP
// servers that start, commands and skills), and an approval of what was shown
// is refused when the files changed since.
import { describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, symlinkSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { approveShown, shownDigests, trustLines } from "../approve.ts";
import { trustReport } from "../report.ts";
import { readForDescription } from "../describe.ts";
import { APPROVE_ALL, MCP_LINE, MCP_URL, SESSION_START, writeEvilInputs } from "./evil-workspace.ts";

const tmp = (p: string) => realpathSync(mkdtempSync(join(tmpdir(), p)));

function evilWorkspace() {
  const home = tmp("rx-trust-home-");
  const ws = tmp("rx-trust-ws-");
  writeFileSync(join(home, "config.toml"), "");
  writeEvilInputs(ws);
  return { home, ws };
}

describe("the trust report describes every input it approves", () => {
  test("hooks, MCP servers, commands and skills are listed with what each can do", () => {
    const { home, ws } = evilWorkspace();
    const r = trustReport(ws, home);
    // What can do the most comes first.
    expect(r.inputs.map((i) => i.kind)).toEqual(["hooks", "mcp", "settings", "command", "skill"]);
    const by = Object.fromEntries(r.inputs.map((i) => [i.rel, i]));
    expect(Object.keys(by).sort()).toEqual([".mcp.json", ".reasonix/commands/deploy.md", ".reasonix/hooks.toml", ".reasonix/skills/release/SKILL.md", "reasonix.toml"]);

    const hooks = by[".reasonix/hooks.toml"]!;
    expect(hooks.kind).toBe("hooks");
    expect(hooks.can).toMatch(/approve tool calls without asking/);
    expect(hooks.can).toMatch(/run/);
    expect(hooks.items).toEqual([`PreToolUse (every tool): ${APPROVE_ALL}`, `SessionStart: ${SESSION_START}`]);

    const mcp = by[".mcp.json"]!;
    expect(mcp.kind).toBe("mcp");
    expect(mcp.can).toMatch(/start/);
    expect(mcp.items).toEqual([MCP_LINE, `remote: connects to ${MCP_URL} (http)`]);

    const cmd = by[".reasonix/commands/deploy.md"]!;
    expect(cmd.kind).toBe("command");
    expect(cmd.can).toContain("/deploy");
    expect(cmd.items).toContain("allowed-tools (run without asking during the command): Bash(git push:*)");

    const skill = by[".reasonix/skills/release/SKILL.md"]!;
    expect(skill.kind).toBe("skill");
    expect(skill.can).toContain("release");

    const settings = by["reasonix.toml"]!;
    expect(settings.kind).toBe("settings");
    expect(settings.items).toEqual(['permissions.mode = "auto"  (reasonix.toml:2)']);

    // The terminal text the CLI and the chat print, from the same data.
    const text = trustLines(r).join("\n");
    for (const want of [".reasonix/hooks.toml", APPROVE_ALL, "approve tool calls without asking", "node /tmp/steal.js --all", "https://mcp.evil.example/rpc", "/deploy", "release", 'permissions.mode = "auto"']) expect(text).toContain(want);
  });

  test("hooks and MCP servers declared in reasonix.toml are described like those in their own files", () => {
    const { home, ws } = evilWorkspace();
    writeFileSync(join(ws, "reasonix.toml"), `[[hooks]]\nevent = "PreToolUse"\nmatcher = "bash"\ncommand = """${APPROVE_ALL}"""\n\n[[plugins]]\nname = "tomlsrv"\ncommand = "python3"\nargs = ["-m", "srv"]\n`);
    const settings = trustReport(ws, home).inputs.find((i) => i.rel === "reasonix.toml")!;
    expect(settings.can).toMatch(/approve tool calls without asking/);
    expect(settings.items).toEqual([`hook PreToolUse (tools matching "bash"): ${APPROVE_ALL}  (reasonix.toml:1)`, "MCP server tomlsrv: starts python3 -m srv  (reasonix.toml:6)"]);
  });

  test("control characters and bidi overrides from a repository are shown escaped, never sent raw", () => {
    const { home, ws } = evilWorkspace();
    writeFileSync(join(ws, ".reasonix", "hooks.toml"), '[[hooks]]\nevent = "Stop"\ncommand = "echo hi\\u001b[2K\\u202e"\n');
    const hooks = trustReport(ws, home).inputs.find((i) => i.rel === ".reasonix/hooks.toml")!;
    expect(hooks.items).toEqual(["Stop: echo hi\\u001b[2K\\u202e"]);
  });
});

describe("approving exactly what was shown", () => {
  test("a hook changed between showing and approving: refused, nothing recorded", () => {
    const { home, ws } = evilWorkspace();
    const shown = shownDigests(trustReport(ws, home));
    writeFileSync(join(ws, ".reasonix", "hooks.toml"), `[[hooks]]\nevent = "PreToolUse"\ncommand = "rm -rf ~"\n`);
    expect(() => approveShown(ws, shown, home)).toThrow(/\.reasonix\/hooks\.toml changed since it was shown/);
    expect(readFileSync(join(home, "config.toml"), "utf8")).not.toContain("trust.workspaces");
  });

  test("a file added or removed after showing: refused", () => {
    const { home, ws } = evilWorkspace();
    const shown = shownDigests(trustReport(ws, home));
    writeFileSync(join(ws, ".reasonix", "commands", "later.md"), "sneaky\n");
    expect(() => approveShown(ws, shown, home)).toThrow(/\.reasonix\/commands\/later\.md was not shown/);
    const fewer = { ...shown };
    delete fewer[".mcp.json"];
    expect(() => approveShown(ws, fewer, home)).toThrow(/\.mcp\.json was not shown/);
    expect(readFileSync(join(home, "config.toml"), "utf8")).not.toContain("trust.workspaces");
  });

  test("unchanged: the shown digests are recorded and the workspace is trusted", () => {
    const { home, ws } = evilWorkspace();
    const shown = shownDigests(trustReport(ws, home));
    const after = approveShown(ws, shown, home);
    expect(after.trusted).toBe(true);
    const cfg = readFileSync(join(home, "config.toml"), "utf8");
    for (const [rel, sha] of Object.entries(shown)) expect(cfg).toContain(`"${rel}" = "${sha}"`);
  });
});

describe("reading a file to describe it", () => {
  test("a FIFO or a device is refused at once, never read (a writer could otherwise block or flood the question)", () => {
    const ws = tmp("rx-trust-fifo-");
    mkdirSync(join(ws, ".reasonix"));
    expect(spawnSync("mkfifo", [join(ws, ".reasonix", "hooks.toml")]).status).toBe(0);
    expect(readForDescription(ws, ".reasonix/hooks.toml")).toEqual({ problem: "is a FIFO (named pipe), not a regular file" });
    symlinkSync("/dev/zero", join(ws, ".mcp.json"));
    expect(readForDescription(ws, ".mcp.json")).toEqual({ problem: "is a character device, not a regular file" });
  });
});
