/**
 * Entries every workspace has: the built-in skills (`/init`, `/explore`,
 * `/test`, `/reasonix-guide`) and `/docs`, which searches the embedded
 * documentation first and hands the evidence to the model.
 */
import { docsDigest, searchDocs } from "../docs/index.ts";
import { buildInfo } from "../version.ts";
import { skillMessage } from "./skills.ts";
import type { CommandEntry, CommandSource } from "./types.ts";

const skill = (name: string, description: string, body: string, argumentHint?: string): CommandEntry => ({
  name,
  description,
  kind: "skill",
  scope: "builtin",
  source: "built-in",
  ...(argumentHint ? { argumentHint } : {}),
  skill: { invocation: "manual", runAs: "inline" },
  expand: (args) => skillMessage(name, "(built-in)", body, args),
});

const INIT = `Write an AGENTS.md at the root of this repository for coding agents that will work here later.
First explore: read the README and the build files (package.json, Makefile, pyproject.toml, Cargo.toml, go.mod or similar), list the top-level folders, and look at a few source and test files.
Then write AGENTS.md with: what the project is (two sentences), how to build, run and test it (exact commands), the layout (folder → purpose), code conventions you observed, and pitfalls (generated files, slow tests, required services).
Keep it under 120 lines, state only what you verified, and if an AGENTS.md already exists, improve it instead of replacing what is still true.`;

const EXPLORE = `Explore the part of the codebase the arguments name (or the whole repository when there are none) without changing anything.
Use ls, glob, grep and read_file; follow the call paths that matter. Report: the files involved and their roles, how data and control flow between them, the entry points, and anything surprising. Cite paths with line numbers.`;

const TEST = `Find how this project runs its tests (scripts in the build files, CI configuration, the README), run the relevant tests for the arguments (or the whole suite when there are none), and report what passed and what failed.
For each failure, read the test and the code under test and explain the cause. Do not change code unless the arguments ask for a fix.`;

const GUIDE = `Answer the user's question about Reasonix itself from its embedded documentation.
Use the docs tool: search first, then read the sections that match, and quote the setting names, commands and file paths exactly as documented. When the question is about what this machine or workspace has available (commands, skills, MCP servers, hooks), tell the user to run \`reasonix doctor capabilities\` and explain what it shows.
Say so when the documentation does not cover the question instead of guessing. Cite sections as path#anchor.`;

/** `/docs [question]`: local BM25 search first; the hits (with version and corpus digest) go to the model as evidence. */
export function docsEvidence(question: string, limit = 5): string {
  const q = question.trim();
  const head = `<docs-evidence version="${buildInfo().version}" corpus="${docsDigest().slice(0, 16)}">`;
  if (!q) return `${head}\nNo question given.\n</docs-evidence>\n\nAsk the user what they want to know about Reasonix.`;
  const hits = searchDocs(q, limit);
  const body = hits.length
    ? hits.map((h) => `## ${h.path}#${h.anchor} — ${h.heading}\n${h.snippet}`).join("\n\n")
    : "No section of the embedded docs matches.";
  return `${head}\n${body}\n</docs-evidence>\n\nQuestion: ${q}\nAnswer from the evidence above; use the docs tool to read a whole section when a snippet is not enough, and cite sections as path#anchor.`;
}

export const builtinEntries: CommandEntry[] = [
  skill("init", "Explore the repository and write an AGENTS.md for it", INIT),
  skill("explore", "Explore code without changing it and report how it fits together", EXPLORE, "[area]"),
  skill("test", "Run the project's tests and explain failures", TEST, "[what to test]"),
  skill("reasonix-guide", "Answer questions about Reasonix from its embedded docs", GUIDE, "<question>"),
  {
    name: "docs",
    description: "Search the embedded docs and answer from them",
    argumentHint: "[question]",
    kind: "builtin",
    scope: "builtin",
    source: "built-in",
    expand: (args) => docsEvidence(args),
  },
];

export const builtinSource: CommandSource = { id: "builtin", list: () => builtinEntries };
