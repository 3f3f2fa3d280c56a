import { defineCommand, defineGroup } from "../command.ts";
import { bold, dim, printJson } from "../output.ts";

const search = defineCommand<{ query: string[]; json: boolean; limit: number }>({
  command: "search <query..>",
  describe: "Search the documentation built into this binary (BM25)",
  builder: (y) =>
    y
      .positional("query", { type: "string", array: true, demandOption: true })
      .option("json", { type: "boolean", default: false, describe: "Print results as JSON" })
      .option("limit", { alias: "n", type: "number", default: 8, describe: "Maximum results" }),
  run: async (args) => {
    const { searchDocs } = await import("../../core/docs/index.ts");
    const hits = searchDocs(args.query.join(" "), args.limit);
    if (args.json) return printJson(hits);
    if (hits.length === 0) {
      process.stderr.write(`no results for "${args.query.join(" ")}"\n`);
      return 1;
    }
    for (const h of hits) {
      process.stdout.write(`${bold(`${h.path}${h.anchor ? `#${h.anchor}` : ""}`)}  ${dim(h.score.toFixed(2))}\n  ${h.heading}\n  ${dim(h.snippet)}\n\n`);
    }
  },
});

const show = defineCommand<{ ref: string }>({
  command: "show <ref>",
  describe: "Print an embedded document or one section: PATH or PATH#section",
  builder: (y) => y.positional("ref", { type: "string", demandOption: true }),
  run: async (args) => {
    const { showDoc } = await import("../../core/docs/index.ts");
    process.stdout.write(showDoc(args.ref));
  },
});

const list = defineCommand<{ json: boolean }>({
  command: "list",
  describe: "List the embedded documents",
  builder: (y) => y.option("json", { type: "boolean", default: false }),
  run: async (args) => {
    const { docPaths } = await import("../../core/docs/index.ts");
    if (args.json) return printJson(docPaths());
    process.stdout.write(`${docPaths().join("\n")}\n`);
  },
});

export default defineGroup("docs", "Search and read the built-in documentation (works offline)", [search, show, list]);
