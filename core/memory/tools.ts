/**
 * The model's memory tools: `remember` (create, or update from a revision),
 * `forget` (archive) and `recall` (search). Only a new, short, non-secret
 * project/reference fact of this workspace is created without a prompt;
 * global facts, user preferences and feedback, updates, duplicates, long
 * facts and every forget ask; text that looks like a secret asks even in
 * auto mode (core/permissions reads `approval`). The create grant is
 * create-only: the store refuses an id that exists.
 */
import { secretFindings } from "../crash/scrub.ts";
import { FACT_SCOPES, FACT_TYPES, type FactScope, type FactType } from "./fact.ts";
import { Recaller } from "./recall.ts";
import type { MemoryStore } from "./store.ts";
import type { ToolDefinition } from "../tools/types.ts";

/** The longest fact the model may create without a prompt. */
export const FREE_FACT_CHARS = 500;

interface RememberInput {
  text: string;
  type?: FactType;
  scope?: FactScope;
  id?: string;
  revision?: number;
}

const norm = (t: string) => t.replace(/\s+/g, " ").trim().toLowerCase();
const fail = (e: unknown) => ({ ok: false, output: `error: ${e instanceof Error ? e.message : String(e)}` });

export function memoryTools(store: MemoryStore): ToolDefinition[] {
  const remember: ToolDefinition<RememberInput> = {
    name: "remember",
    description:
      "Save a durable fact for later sessions (how this project builds or tests, where things are, a preference the user stated). " +
      "One fact per call, in a sentence or two. To change a fact, pass its id and the revision you read (from recall).",
    inputSchema: {
      type: "object",
      properties: {
        text: { type: "string", description: "The fact, self-contained" },
        type: { type: "string", enum: [...FACT_TYPES], description: "project (default), reference, user (a user preference) or feedback (how the user wants you to work)" },
        scope: { type: "string", enum: [...FACT_SCOPES], description: "project (default: this workspace) or global (every workspace)" },
        id: { type: "string", description: "Only to update an existing fact" },
        revision: { type: "number", description: "With id: the revision you are changing" },
      },
      required: ["text"],
    },
    kind: "write",
    summarize(i) {
      const text = String(i.text ?? "");
      const secret = secretFindings(text);
      const what = i.id ? `update fact ${i.id}` : `remember (${i.scope ?? "project"} ${i.type ?? "project"})`;
      // The approval prompt shows this line: a secret is said up front.
      return `${what}: ${text.slice(0, 80)}${secret.length ? ` — looks like it holds a secret (${secret.join(", ")})` : ""}`;
    },
    approval(i) {
      const text = String(i.text ?? "");
      const secret = secretFindings(text);
      if (secret.length) return { level: "always", reason: `the fact looks like it holds a secret (${secret.join(", ")})` };
      if (i.id !== undefined) return { level: "ask", reason: `it changes the remembered fact ${i.id}` };
      if ((i.scope ?? "project") !== "project") return { level: "ask", reason: "a global fact applies to every workspace" };
      const type = i.type ?? "project";
      if (type !== "project" && type !== "reference") return { level: "ask", reason: `a ${type} fact speaks for the user` };
      if (text.trim().length > FREE_FACT_CHARS) return { level: "ask", reason: `the fact is longer than ${FREE_FACT_CHARS} characters` };
      const same = store.list().facts.find((f) => norm(f.text) === norm(text));
      if (same) return { level: "ask", reason: `it repeats the fact ${same.id}` };
      return { level: "free", reason: "a new, short project fact needs no approval" };
    },
    async run(i) {
      try {
        if (i.id !== undefined) {
          if (typeof i.revision !== "number") return { ok: false, output: "error: to update a fact, pass the revision you read (recall shows it)" };
          const f = store.update(i.id, i.revision, { text: i.text, ...(i.type ? { type: i.type } : {}) });
          return { ok: true, output: `updated ${f.id} to revision ${f.revision}`, receipt: `updated fact ${f.id} (r${f.revision})` };
        }
        const f = store.create({ text: i.text, type: i.type ?? "project", scope: i.scope ?? "project" });
        return { ok: true, output: `remembered as ${f.id} (revision 1)`, receipt: `remembered ${f.id}` };
      } catch (e) {
        return fail(e);
      }
    },
  };

  const forget: ToolDefinition<{ id: string; revision?: number }> = {
    name: "forget",
    description: "Archive a remembered fact that is wrong or obsolete (it can be restored by the user).",
    inputSchema: {
      type: "object",
      properties: { id: { type: "string" }, revision: { type: "number", description: "The revision you read; refused if it changed since" } },
      required: ["id"],
    },
    kind: "write",
    summarize: (i) => `forget fact ${i.id}`,
    approval: (i) => ({ level: "ask", reason: `it archives the remembered fact ${i.id}` }),
    async run(i) {
      try {
        const f = store.forget(i.id, i.revision);
        return { ok: true, output: `archived ${f.id} (revision ${f.revision})`, receipt: `archived fact ${f.id}` };
      } catch (e) {
        return fail(e);
      }
    },
  };

  const recaller = new Recaller(store);
  const recall: ToolDefinition<{ query: string }> = {
    name: "recall",
    description: "Search the facts remembered for this workspace and globally; shows each fact's id and revision.",
    inputSchema: { type: "object", properties: { query: { type: "string" } }, required: ["query"] },
    kind: "read",
    summarize: (i) => `recall ${String(i.query ?? "")}`,
    async run(i) {
      const t = recaller.recall(String(i.query ?? ""));
      if (!t.picked.length) return { ok: true, output: `no remembered fact matches${t.suppressed ? ` (${t.suppressed})` : ""}` };
      const lines = t.picked.map((p) => {
        const f = store.get(p.id)?.fact;
        return `${p.id} (revision ${p.revision}, ${p.type}, ${p.scope}, updated ${p.updated.slice(0, 10)}${p.stale ? ", may be outdated" : ""}): ${f?.text ?? "(changed meanwhile)"}`;
      });
      return { ok: true, output: lines.join("\n") };
    },
  };

  return [remember, forget, recall];
}
