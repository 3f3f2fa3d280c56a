/**
 * A parsing thread for code_index (see pool.ts): receives batches of
 * { text, lang }, answers each with its symbols or the error message. The
 * compiled binary carries this file as an extra build entrypoint
 * (scripts/lib/grammar-pack.ts CODE_INDEX_WORKER).
 */
import type { CodeSymbol } from "./extract.ts";
import type { LangId } from "./grammars.ts";
import { parseSymbols } from "./parse.ts";

export interface WorkerRequest {
  id: number;
  jobs: { text: string; lang: LangId }[];
}
export interface WorkerReply {
  id: number;
  results: (CodeSymbol[] | { error: string })[];
}

declare const self: Worker;

self.onmessage = async (e: MessageEvent<WorkerRequest>) => {
  const results: WorkerReply["results"] = [];
  for (const job of e.data.jobs) {
    try {
      results.push(await parseSymbols(job.text, job.lang));
    } catch (err) {
      results.push({ error: (err as Error).message });
    }
  }
  self.postMessage({ id: e.data.id, results } satisfies WorkerReply);
};
