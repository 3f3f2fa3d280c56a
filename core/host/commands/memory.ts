// /memory: the remembered facts (core/memory), what the last recall chose and
// why, the instruction files that load, and the user's own changes — forget,
// restore, recover — validated by the store, never asked of the model.
import { errorMessage } from "../../errors.ts";
import { factRevisions, listFacts, recoverFact, type FactView } from "../../memory/admin.ts";
import type { RecallTrace } from "../../memory/recall.ts";
import type { EngineMemory } from "../../engine/types.ts";
import { failed, registerCommand, result } from "./registry.ts";
import type { CommandContext, CommandResult } from "./types.ts";

const USAGE = "/memory [recall | instructions | archived | revisions <id> | restore <id> <revision> | forget <id> | recover <path>]";

const oneLine = (t: string, n = 100) => {
  const flat = t.replace(/\s+/g, " ").trim();
  return flat.length > n ? `${flat.slice(0, n - 1)}…` : flat;
};
const day = (iso: string) => iso.slice(0, 10);
const head = (f: FactView, extra = "") => `${f.id}  r${f.revision} · ${f.type} · ${f.scope} · updated ${day(f.updated)}${f.stale ? " · stale" : ""}${extra}`;

function listing(mem: EngineMemory, which: "live" | "archived"): CommandResult {
  const l = listFacts(mem.store, which);
  const lines: string[] = [];
  for (const scope of ["project", "global"] as const) {
    const facts = l.facts.filter((f) => f.scope === scope);
    if (!facts.length) continue;
    lines.push(scope === "project" ? `Project facts (${l.workspace})` : "Global facts");
    for (const type of [...new Set(facts.map((f) => f.type))]) {
      lines.push(`  ${type}`);
      for (const f of facts.filter((x) => x.type === type)) lines.push(`    ${head(f)}`, `      ${oneLine(f.text)}`);
    }
  }
  if (!lines.length) lines.push(which === "live" ? "No facts remembered (the agent's remember tool or `reasonix memory add` adds one)." : "No archived facts.");
  else if (which === "archived") lines.unshift("Archived facts (/memory restore <id> <revision> brings one back)");
  for (const p of l.problems) lines.push(`unreadable: ${p.message}`);
  return result("memory", lines, { data: { memory: l } });
}

export function recallLines(trace: RecallTrace | undefined, recallOn: boolean): string[] {
  if (!recallOn) return ["Recall is off ([memory] recall = false in your config)."];
  if (!trace) return ["No recall yet in this session: it runs before each message you send."];
  const lines = [`Last recall for: ${oneLine(trace.query, 80)}`];
  if (trace.suppressed) return [...lines, `  nothing recalled: ${trace.suppressed}`];
  lines.push(`  ${trace.considered} facts searched, ${trace.relevant} relevant, ${trace.picked.length} sent`);
  for (const p of trace.picked) {
    lines.push(`  ${p.id}  score ${p.score} · ${p.scope} ${p.type} r${p.revision} · updated ${day(p.updated)}${p.stale ? " · stale (ranked lower)" : ""}`);
    lines.push(`    matched: ${p.matched.join(", ") || "(type)"}${p.scope === "global" ? " · global (ranked below project facts)" : ""}`);
  }
  if (trace.overBudget.length) lines.push(`  left out for the budget: ${trace.overBudget.join(", ")}`);
  lines.push(`  budget used: ${trace.picked.length}/${trace.budget.facts} facts, ${trace.chars}/${trace.budget.chars} characters`);
  return lines;
}

const SCOPE_WHY: Record<string, string> = { user: "your own, for every workspace", ancestor: "a folder above the workspace", project: "the workspace" };

function instructions(mem: EngineMemory): CommandResult {
  const scan = mem.instructions();
  const lines = ["Instruction files, in the order a session reads them (yours, then folders above the workspace from the top, then the workspace):"];
  if (!scan.files.length) lines.push("  none (REASONIX.md, AGENTS.md, CLAUDE.md and their .local.md variants are read when present)");
  scan.files.forEach((f, i) => lines.push(`  ${i + 1}. ${f.path}  (${f.importedFrom ? `imported by ${f.importedFrom}` : SCOPE_WHY[f.scope]}, ${f.text.length} characters)`));
  for (const s of scan.skipped) lines.push(`  skipped ${s.path}: ${s.reason}`);
  for (const w of scan.warnings) lines.push(`  ${w}`);
  lines.push("#note adds a line to the workspace's instructions; facts are recalled separately (/memory).");
  return result("memory", lines, { data: { instructions: { files: scan.files.map(({ path, scope, importedFrom, text }) => ({ path, scope, chars: text.length, ...(importedFrom ? { importedFrom } : {}) })), skipped: scan.skipped, warnings: scan.warnings } } });
}

const positive = (s: string | undefined) => (s && /^[1-9]\d*$/.test(s) ? Number(s) : undefined);

function run(ctx: CommandContext, arg: string): CommandResult {
  const mem = ctx.host.engine.memory();
  const [sub = "", ...rest] = arg.split(/\s+/).filter(Boolean);
  const store = mem.store;
  switch (sub) {
    case "":
    case "list":
      return listing(mem, "live");
    case "archived":
      return listing(mem, "archived");
    case "recall": {
      const trace = mem.lastRecall(ctx.host.session.id);
      return result("memory", recallLines(trace, mem.recallOn), { data: { recall: trace ?? null, recallOn: mem.recallOn } });
    }
    case "instructions":
      return instructions(mem);
    case "revisions": {
      if (!rest[0]) return failed("memory", "usage: /memory revisions <id>");
      const revs = factRevisions(store, rest[0]);
      const lines = [`Revisions of ${rest[0]}, oldest first:`, ...revs.flatMap((r) => [`  ${head(r, r.current ? (r.archived ? " · current, archived" : " · current") : "")}`, `    ${oneLine(r.text)}`])];
      return result("memory", lines, { data: { revisions: revs } });
    }
    case "restore": {
      const rev = positive(rest[1]);
      if (!rest[0] || rev === undefined) return failed("memory", "usage: /memory restore <id> <revision> (/memory revisions <id> lists them)");
      const f = store.restore(rest[0], rev);
      return result("memory", [`restored ${f.id} revision ${rev} as revision ${f.revision}`], { data: { fact: f } });
    }
    case "forget": {
      if (!rest[0]) return failed("memory", "usage: /memory forget <id>");
      const f = store.forget(rest[0]);
      return result("memory", [`archived ${f.id} at revision ${f.revision} (/memory restore ${f.id} ${f.revision} brings it back)`], { data: { fact: f } });
    }
    case "recover": {
      // The rest of the line is the path (spaces and all); quotes around it are dropped.
      const path = arg.slice(arg.indexOf("recover") + "recover".length).trim().replace(/^(["'])(.+)\1$/, "$2");
      if (!path) return failed("memory", "usage: /memory recover <path to a fact file>");
      const r = recoverFact(store, path, ctx.host.engine.workspace);
      const lines = [r.known ? `recovered ${r.fact.id} from ${r.source} as revision ${r.fact.revision}` : `recovered ${r.fact.id} from ${r.source} (a fact this workspace did not know, revision ${r.fact.revision})`];
      if (r.secrets.length) lines.push(`note: the text looks like it holds a secret (${r.secrets.join(", ")})`);
      return result("memory", lines, { data: { fact: r.fact, known: r.known } });
    }
    default:
      return failed("memory", `unknown /memory subcommand "${sub}": ${USAGE}`);
  }
}

registerCommand({
  name: "memory",
  execute: (ctx, arg) => {
    try {
      return run(ctx, arg);
    } catch (e) {
      return failed("memory", `memory: ${errorMessage(e)}`);
    }
  },
});
