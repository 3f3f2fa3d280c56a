/**
 * docs: the agent's way into Reasonix's own embedded documentation (the
 * corpus `reasonix docs` serves): BM25 search, then read a section. Every
 * answer names the version and corpus digest it came from.
 */
import { docsDigest, searchDocs, showDoc } from "../../docs/index.ts";
import { errorMessage } from "../../errors.ts";
import { buildInfo } from "../../version.ts";
import type { ToolDefinition } from "../types.ts";
import { done, fail, guarded, int } from "./common.ts";

interface Input { query?: string; section?: string; limit?: number }

const MAX_SECTION_CHARS = 20_000;
const stamp = () => `[reasonix ${buildInfo().version} docs, corpus ${docsDigest().slice(0, 16)}]`;

export const docsTool: ToolDefinition<Input> = {
  name: "docs",
  description:
    "Search or read Reasonix's own documentation (how to configure and use Reasonix: providers, permissions, sandbox, commands, skills, hooks, MCP, remote). Give `query` to search (returns ranked sections with snippets), or `section` as path#anchor from a search result to read it.",
  inputSchema: {
    type: "object",
    properties: {
      query: { type: "string", description: "words to search for" },
      section: { type: "string", description: "a document or section to read, e.g. configuration.md#workspace-trust" },
      limit: { type: "integer", minimum: 1, maximum: 20, description: "how many search results (default 8)" },
    },
    additionalProperties: false,
  },
  kind: "read",
  // Embedded text, not workspace files: no path for Read(...) rules to match.
  paths: () => [],
  summarize: (i) => (i?.section ? `docs ${i.section}` : `docs search "${String(i?.query ?? "").slice(0, 80)}"`),
  run: guarded(async (input) => {
    const section = typeof input?.section === "string" ? input.section.trim() : "";
    const query = typeof input?.query === "string" ? input.query.trim() : "";
    if (section) {
      try {
        let text = showDoc(section);
        if (text.length > MAX_SECTION_CHARS) text = `${text.slice(0, MAX_SECTION_CHARS)}\n[… section truncated; read a subsection instead]`;
        return done(`${stamp()} ${section}\n\n${text}`);
      } catch (e) {
        return fail(errorMessage(e));
      }
    }
    if (!query) return fail("give `query` to search or `section` (path#anchor) to read");
    const hits = searchDocs(query, int(input, "limit", { min: 1, def: 8 })!);
    if (hits.length === 0) return done(`${stamp()} no section matches "${query}"`);
    return done([stamp(), ...hits.map((h) => `- ${h.path}#${h.anchor} — ${h.heading} (score ${h.score})\n  ${h.snippet.replace(/\s+/g, " ")}`)].join("\n"));
  }),
};
