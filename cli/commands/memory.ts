import { defineCommand, defineGroup } from "../command.ts";
import { bold, dim, printJson, yellow } from "../output.ts";

type Common = { json: boolean; dir?: string };

const store = async (dir?: string) => {
  const { MemoryStore } = await import("../../core/memory/store.ts");
  const { reasonixHome } = await import("../../core/home.ts");
  const { resolve } = await import("node:path");
  return new MemoryStore(reasonixHome(), resolve(dir ?? process.cwd()));
};

const common = (y: import("yargs").Argv) =>
  y
    .option("json", { type: "boolean", default: false, describe: "Print as JSON" })
    .option("dir", { alias: "C", type: "string", describe: "The workspace whose project facts to use (default: current directory)" });

type FactLike = { id: string; revision: number; type: string; scope: string; updated: string; text: string };
const oneLine = (t: string, n = 100) => {
  const flat = t.replace(/\s+/g, " ").trim();
  return flat.length > n ? `${flat.slice(0, n - 1)}…` : flat;
};
const head = (f: FactLike, extra = "") => `${bold(f.id)}  ${dim(`r${f.revision} · ${f.type} · ${f.scope} · ${f.updated.slice(0, 10)}${extra}`)}`;

const list = defineCommand<Common & { all: boolean; archived: boolean }>({
  command: "list",
  describe: "List remembered facts: this workspace's project facts, then global ones",
  builder: (y) =>
    common(y)
      .option("all", { type: "boolean", default: false, describe: "Include archived (forgotten) facts" })
      .option("archived", { type: "boolean", default: false, describe: "Only archived facts" }) as any,
  run: async (args) => {
    const s = await store(args.dir);
    const live = new Set(s.list().facts.map((f) => f.id));
    const got = s.list({ archived: args.all || args.archived });
    const facts = got.facts.map((f) => ({ ...f, archived: !live.has(f.id) })).filter((f) => !args.archived || f.archived);
    const problems = got.problems.map((p) => ({ file: p.file, field: p.field, message: p.message }));
    if (args.json) return printJson({ workspace: s.projectWorkspace, facts, problems });
    for (const p of problems) process.stderr.write(yellow(`unreadable: ${p.message}\n`, process.stderr));
    if (facts.length === 0) process.stderr.write(dim("no facts remembered\n", process.stderr));
    for (const f of facts) process.stdout.write(`${head(f, f.archived ? " · archived" : "")}\n  ${oneLine(f.text)}\n`);
    return problems.length ? 1 : 0;
  },
});

const show = defineCommand<Common & { id: string }>({
  command: "show <id>",
  describe: "Print one fact (live or archived) with its front matter",
  builder: (y) => common(y).positional("id", { type: "string", demandOption: true }) as any,
  run: async (args) => {
    const s = await store(args.dir);
    const rec = s.get(args.id);
    if (!rec) {
      const { ReasonixError } = await import("../../core/errors.ts");
      throw new ReasonixError("memory_not_found", `no fact ${args.id}`, { hint: "`reasonix memory list --all` lists live and archived facts" });
    }
    if (args.json) return printJson({ ...rec.fact, archived: rec.archived, path: rec.path });
    const { formatFact } = await import("../../core/memory/fact.ts");
    if (rec.archived) process.stderr.write(dim(`archived: restore it with \`reasonix memory restore ${rec.fact.id} ${rec.fact.revision}\`\n`, process.stderr));
    process.stdout.write(formatFact(rec.fact));
  },
});

const add = defineCommand<Common & { text: string[]; type: string; global: boolean }>({
  command: "add <text..>",
  describe: "Remember a new fact",
  builder: (y) =>
    common(y)
      .positional("text", { type: "string", array: true, demandOption: true })
      .option("type", { type: "string", choices: ["user", "feedback", "project", "reference"], default: "project", describe: "What kind of fact" })
      .option("global", { type: "boolean", default: false, describe: "For every workspace (default: this workspace only)" })
      .example('reasonix memory add "tests need docker compose up first"', "")
      .example('reasonix memory add --global --type user "I prefer pnpm"', "") as any,
  run: async (args) => {
    const s = await store(args.dir);
    const f = s.create({ text: args.text.join(" "), type: args.type as "project", scope: args.global ? "global" : "project" });
    if (args.json) return printJson(f);
    process.stdout.write(`${head(f)}\n`);
  },
});

const forget = defineCommand<Common & { id: string; revision?: number }>({
  command: "forget <id>",
  describe: "Archive a fact: recall stops using it; its revisions stay and `restore` brings it back",
  builder: (y) =>
    common(y)
      .positional("id", { type: "string", demandOption: true })
      .option("revision", { type: "number", describe: "Only if the fact is still at this revision (else a conflict, exit 1)" }) as any,
  run: async (args) => {
    const f = (await store(args.dir)).forget(args.id, args.revision);
    if (args.json) return printJson({ ...f, archived: true });
    process.stdout.write(`archived ${f.id} at revision ${f.revision}\n`);
  },
});

const restore = defineCommand<Common & { id: string; revision: number }>({
  command: "restore <id> <revision>",
  describe: "Make an earlier revision (or an archived fact) live again, as a new revision",
  builder: (y) => common(y).positional("id", { type: "string", demandOption: true }).positional("revision", { type: "number", demandOption: true }) as any,
  run: async (args) => {
    const { UsageError } = await import("../../core/errors.ts");
    if (!Number.isInteger(args.revision) || args.revision < 1) throw new UsageError(`revision must be a positive whole number, got ${args.revision}`);
    const f = (await store(args.dir)).restore(args.id, args.revision);
    if (args.json) return printJson(f);
    process.stdout.write(`restored ${f.id} revision ${args.revision} as revision ${f.revision}\n`);
  },
});

const revisions = defineCommand<Common & { id: string }>({
  command: "revisions <id>",
  describe: "List every revision of a fact, oldest first",
  builder: (y) => common(y).positional("id", { type: "string", demandOption: true }) as any,
  run: async (args) => {
    const revs = (await store(args.dir)).revisions(args.id);
    if (args.json) return printJson(revs.map((r) => ({ ...r.fact, current: r.current, archived: r.archived })));
    for (const r of revs) {
      const mark = r.current ? (r.archived ? " · current, archived" : " · current") : "";
      process.stdout.write(`${head(r.fact, mark)}\n  ${oneLine(r.fact.text)}\n`);
    }
  },
});

const archived = defineCommand<Common>({
  command: "archived",
  describe: "List archived (forgotten) facts; `restore` brings one back",
  builder: (y) => common(y) as any,
  run: async (args) => {
    const { listFacts } = await import("../../core/memory/admin.ts");
    const l = listFacts(await store(args.dir), "archived");
    if (args.json) return printJson(l);
    for (const p of l.problems) process.stderr.write(yellow(`unreadable: ${p.message}\n`, process.stderr));
    if (l.facts.length === 0) process.stderr.write(dim("no archived facts\n", process.stderr));
    for (const f of l.facts) process.stdout.write(`${head(f, " · archived")}\n  ${oneLine(f.text)}\n`);
    return l.problems.length ? 1 : 0;
  },
});

const recover = defineCommand<Common & { path: string }>({
  command: "recover <path>",
  describe: "Bring back a fact from a fact file anywhere (a backup, a copy): validated, and a new revision when the fact is known — history is never overwritten",
  builder: (y) =>
    common(y)
      .positional("path", { type: "string", demandOption: true })
      .example("reasonix memory recover ~/backup/memory/projects/app-1a2b3c4d5e6f/facts/tests-need-docker-3fa9c1.md", "") as any,
  run: async (args) => {
    const { recoverFact } = await import("../../core/memory/admin.ts");
    const r = recoverFact(await store(args.dir), args.path, process.cwd());
    if (args.json) return printJson({ ...r.fact, known: r.known, source: r.source, secrets: r.secrets });
    if (r.secrets.length) process.stderr.write(yellow(`note: the text looks like it holds a secret (${r.secrets.join(", ")})\n`, process.stderr));
    process.stdout.write(`recovered ${r.fact.id} from ${r.source} as revision ${r.fact.revision}\n`);
  },
});

export default defineGroup("memory", "Facts Reasonix remembers across sessions and recalls into your messages (docs/memory.md)", [list, show, add, forget, restore, revisions, archived, recover]);
