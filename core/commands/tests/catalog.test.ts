// The command registry: custom commands (user, project), skills and
// built-ins in one catalog; collisions; argument expansion; workspace trust.
import { describe, expect, test } from "bun:test";
import { mkdtempSync, realpathSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../../config/load.ts";
import { expandTemplate, splitArgs } from "../args.ts";
import { expandCommand, parseSlash } from "../expand.ts";
import { parseFrontMatter } from "../frontmatter.ts";
import { CommandRegistry, workspaceCommands } from "../index.ts";
import { skillIndex } from "../skills.ts";
import { put, trustCli } from "./helpers.ts";

const tmp = (p: string) => realpathSync(mkdtempSync(join(tmpdir(), p)));

function fixture() {
  const home = tmp("rx-cmd-home-");
  const ws = tmp("rx-cmd-ws-");
  writeFileSync(join(home, "config.toml"), "");
  const registry = () => workspaceCommands({ workspace: ws, home, values: loadConfig({ home, cwd: ws }).values });
  return { home, ws, registry };
}

describe("arguments and front matter", () => {
  test("$ARGUMENTS is the text as typed, $1…$N its shell-split words, $$ a dollar; no placeholder appends the arguments", () => {
    expect(splitArgs(`auth "login flow" 'x y' z`)).toEqual(["auth", "login flow", "x y", "z"]);
    expect(expandTemplate("Review $1 focusing on $2 ($ARGUMENTS) costs $$5, $3.", `auth "login flow"`)).toBe('Review auth focusing on login flow (auth "login flow") costs $5, .');
    expect(expandTemplate("Summarize the diff.", "briefly")).toBe("Summarize the diff.\n\nArguments: briefly");
    expect(expandTemplate("Summarize the diff.", "")).toBe("Summarize the diff.");
  });

  test("front matter: scalars, quoted strings, inline and block lists; a bad line names file:line", () => {
    const fm = parseFrontMatter('---\ndescription: "Review: code"\nargument-hint: [file]\nallowed-tools:\n  - Read\n  - Bash(git:*)\nmodel: fast # cheap\n---\nBody $1\n', "x.md");
    expect(fm.data).toEqual({ description: "Review: code", "argument-hint": ["file"], "allowed-tools": ["Read", "Bash(git:*)"], model: "fast" });
    expect(fm.body).toBe("Body $1\n");
    expect(() => parseFrontMatter("---\nnot a pair\n---\n", "y.md")).toThrow("y.md:2:");
    expect(parseFrontMatter("no front matter", "z.md")).toEqual({ data: {}, body: "no front matter" });
  });

  test("parseSlash takes /name and the rest; paths and plain text are not commands", () => {
    expect(parseSlash("/review auth now")).toEqual({ name: "review", args: "auth now" });
    expect(parseSlash("/git:commit")).toEqual({ name: "git:commit", args: "" });
    expect(parseSlash("/usr/bin/env is odd")).toBeUndefined();
    expect(parseSlash("explain /review")).toBeUndefined();
  });
});

describe("catalog", () => {
  test("user and project commands, nested names, collisions project > user > built-in, shadowed built-in reachable as /reasonix:<name>", async () => {
    const f = fixture();
    put(join(f.home, "commands/review.md"), "---\ndescription: user review\nargument-hint: <area>\n---\nUser review of $ARGUMENTS\n");
    put(join(f.home, "commands/git/commit.md"), "Commit with message $1\n");
    put(join(f.home, "commands/init.md"), "---\ndescription: my own init\n---\nMy init\n");
    put(join(f.ws, ".reasonix/commands/review.md"), "---\ndescription: project review\n---\nProject review of $1\n");
    await trustCli(f.home, f.ws);
    const reg = f.registry();
    const cat = reg.catalog();
    const byName = new Map(cat.entries.map((e) => [e.name, e]));
    expect(byName.get("review")).toMatchObject({ scope: "project", description: "project review", kind: "command" });
    expect(byName.get("git:commit")).toMatchObject({ scope: "user", description: "Commit with message $1" });
    expect(byName.get("init")).toMatchObject({ scope: "user", description: "my own init" });
    expect(byName.get("reasonix:init")).toMatchObject({ scope: "builtin", kind: "skill" });
    expect(cat.shadowed.map((s) => [s.entry.scope, s.entry.name, s.by.scope, s.reachableAs ?? null])).toEqual([
      ["builtin", "init", "user", "reasonix:init"],
      ["user", "review", "project", null],
    ].sort((a, b) => String(a[1]).localeCompare(String(b[1]))) as never);
    expect((await expandCommand(reg, '/review "the auth module"', { workspace: f.ws })).content).toBe("Project review of the auth module\n");
    expect((await expandCommand(reg, "/git:commit fix", { workspace: f.ws })).content).toBe("Commit with message fix\n");
    expect((await expandCommand(reg, "/reasonix:init", { workspace: f.ws })).content).toContain("Write an AGENTS.md");
    expect((await expandCommand(reg, "/nope here", { workspace: f.ws })).content).toBe("/nope here");
  });

  test("a source added later (MCP prompts) joins the catalog; its entries expand through the source", async () => {
    const reg = new CommandRegistry();
    reg.registerSource({ id: "mcp", list: () => [{ name: "mcp__srv__greet", description: "greet", kind: "mcp-prompt", scope: "mcp", source: "mcp:srv", expand: (a) => `hello ${a}` }] });
    expect(reg.catalog().entries.map((e) => e.name)).toEqual(["mcp__srv__greet"]);
    expect((await expandCommand(reg, "/mcp__srv__greet bob", { workspace: "/" })).content).toBe("hello bob");
    reg.removeSource("mcp");
    expect(reg.catalog().entries).toEqual([]);
  });

  test("a front end's local built-ins lose to a custom command of the same name but stay reachable", () => {
    const reg = new CommandRegistry();
    reg.registerSource({ id: "chat", list: () => [{ name: "new", description: "new conversation", kind: "builtin", scope: "builtin", source: "chat" }] });
    reg.registerSource({ id: "user", list: () => [{ name: "new", description: "mine", kind: "command", scope: "user", source: "x", expand: () => "x" }] });
    expect(reg.resolve("new")?.scope).toBe("user");
    expect(reg.resolve("reasonix:new")?.source).toBe("chat");
  });
});

describe("workspace trust", () => {
  test("an untrusted project command and skill are listed as not loaded and never run; after `reasonix trust --yes` they are; an edit untrusts them again", async () => {
    const f = fixture();
    put(join(f.ws, ".reasonix/commands/ship.md"), "---\ndescription: ship it\n---\nShip $1\n");
    put(join(f.ws, ".reasonix/skills/deploy/SKILL.md"), "---\nname: deploy\ndescription: deploy the app\n---\nRun the deploy script.\n");
    put(join(f.ws, ".agents/skills/lint/SKILL.md"), "---\nname: lint\ndescription: lint the code\n---\nRun the linter.\n");
    let reg = f.registry();
    const reasons = reg.catalog().notLoaded.map((e) => [e.name, e.notLoaded]);
    expect(reasons).toEqual([
      ["ship", "not loaded: workspace not trusted (reasonix trust)"],
      ["lint", "not loaded: workspace not trusted (reasonix trust)"],
      ["deploy", "not loaded: workspace not trusted (reasonix trust)"],
    ]);
    expect(reg.resolve("ship")).toBeUndefined();
    await expect(expandCommand(reg, "/ship v1", { workspace: f.ws })).rejects.toThrow(`/ship (${join(f.ws, ".reasonix/commands/ship.md")}) not loaded: workspace not trusted (reasonix trust)`);
    expect(skillIndex(reg.catalog().entries)).toBeNull();

    await trustCli(f.home, f.ws);
    reg = f.registry();
    expect(reg.catalog().notLoaded).toEqual([]);
    expect((await expandCommand(reg, "/ship v1", { workspace: f.ws })).content).toBe("Ship v1\n");
    expect(skillIndex(reg.catalog().entries)).toContain("- deploy: deploy the app\n- lint: lint the code");

    put(join(f.ws, ".reasonix/commands/ship.md"), "---\ndescription: ship it\n---\nShip $1 and push --force\n");
    reg = f.registry();
    expect(reg.catalog().notLoaded.map((e) => e.name)).toEqual(["ship"]);
    await expect(expandCommand(reg, "/ship v1", { workspace: f.ws })).rejects.toThrow("not trusted");
  });

  test("[skills] disabled_skills lists a skill as not loaded, excluded_paths drops it", () => {
    const f = fixture();
    writeFileSync(join(f.home, "config.toml"), `[skills]\ndisabled_skills = ["a"]\nexcluded_paths = ["${join(f.home, "skills/b")}"]\n`);
    put(join(f.home, "skills/a/SKILL.md"), "---\nname: a\ndescription: A\n---\nA\n");
    put(join(f.home, "skills/b/SKILL.md"), "---\nname: b\ndescription: B\n---\nB\n");
    put(join(f.home, "skills/c/SKILL.md"), "---\nname: c\ndescription: C\ninvocation: manual\nrunAs: subagent\n---\nC\n");
    const cat = f.registry().catalog();
    expect(cat.notLoaded.map((e) => [e.name, e.notLoaded])).toEqual([["a", "not loaded: disabled by [skills] disabled_skills"]]);
    expect(cat.entries.find((e) => e.name === "b")).toBeUndefined();
    expect(cat.entries.find((e) => e.name === "c")?.skill).toEqual({ invocation: "manual", runAs: "subagent" });
    expect(skillIndex(cat.entries)).toBeNull();
  });
});
