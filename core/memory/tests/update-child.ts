// A second process for the concurrency test: update one fact from the revision given, print what happened.
import { MemoryStore } from "../store.ts";

const [home, workspace, id, rev, text] = process.argv.slice(2) as [string, string, string, string, string];
try {
  const f = new MemoryStore(home, workspace).update(id, Number(rev), { text });
  process.stdout.write(JSON.stringify({ ok: true, revision: f.revision, text }));
} catch (e) {
  process.stdout.write(JSON.stringify({ ok: false, code: (e as { code?: string }).code, message: String((e as Error).message), text }));
}
