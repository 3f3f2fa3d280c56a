// Another process changing facts through its own MemoryStore: `update ID REV TEXT`, `create ID TEXT`, `forget ID` (any number, in order).
import { MemoryStore } from "../store.ts";

const [home, workspace, ...ops] = process.argv.slice(2) as [string, string, ...string[]];
const store = new MemoryStore(home, workspace);
for (let i = 0; i < ops.length; ) {
  const op = ops[i++];
  if (op === "update") store.update(ops[i++]!, Number(ops[i++]), { text: ops[i++]! });
  else if (op === "create") store.create({ id: ops[i++]!, text: ops[i++]!, type: "project", scope: "project" });
  else if (op === "forget") store.forget(ops[i++]!);
  else throw new Error(`unknown op ${op}`);
}
process.stdout.write("done");
