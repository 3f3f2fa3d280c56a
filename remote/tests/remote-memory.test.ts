// A remote workspace uses the remote machine's memory: `reasonix remote
// connect` starts the serve on the box (real sshd, the compiled binary), and
// the Memory API through the tunnel lists the facts of the box's home — never
// the laptop's, even for the same workspace path.
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { MemoryStore } from "../../core/memory/store.ts";
import { skipWithoutSshd } from "../testing/sshd-harness.ts";
import { httpGet, interrupt, startConnect, supervisorRig } from "./supervisor-support.ts";

const skip = skipWithoutSshd("remote memory test");

describe.skipIf(skip)("remote workspace memory (real sshd, compiled serve)", () => {
  const rig = supervisorRig("memproj");

  test("the Memory API through the tunnel shows the box's facts, not the laptop's", async () => {
    const workspace = join(rig.sshd.home, "memproj");
    // The laptop remembers something for the very same path: it must not show remotely.
    const laptop = new MemoryStore(rig.env.env.REASONIX_HOME!, workspace);
    laptop.create({ id: "laptop-only-fact", text: "LAPTOP: staging lives on my laptop", type: "project", scope: "project" });
    laptop.create({ id: "laptop-global-fact", text: "LAPTOP: I prefer yarn", type: "user", scope: "global" });

    const r = startConnect(rig.env);
    try {
      const ready = await r.waitFor((e) => e.event === "ready", 120_000);
      const token = /#token=([0-9a-f]+)/.exec(ready.url)![1]!;
      const auth = { authorization: `Bearer ${token}` };
      const before = await httpGet(ready.local_port, "/api/memory", auth);
      expect(before.status).toBe(200);
      expect(JSON.parse(before.body)).toMatchObject({ workspace, facts: [], archived: [] });

      // A fact remembered on the box, by the box's own binary in the box's home.
      const bin = `~/.reasonix/remote/bin/reasonix-${rig.build.version}`;
      const added = JSON.parse(rig.sshd.runAsUser(`cd ~/memproj && ${bin} memory add --json 'REMOTE: the box runs postgres on 5433'`));
      expect(added.scope).toBe("project");
      const after = JSON.parse((await httpGet(ready.local_port, "/api/memory", auth)).body);
      expect(after.facts.map((f: { id: string; text: string }) => [f.id, f.text])).toEqual([[added.id, "REMOTE: the box runs postgres on 5433"]]);
      expect(JSON.stringify(after)).not.toContain("LAPTOP");
      const shown = JSON.parse(rig.sshd.runAsUser(`cd ~/memproj && ${bin} memory show --json ${added.id}`));
      expect(shown.path.startsWith(join(rig.sshd.home, ".reasonix", "memory", "projects"))).toBe(true);
      // And the laptop's store never saw the box's fact.
      expect(laptop.list().facts.map((f) => f.id).sort()).toEqual(["laptop-global-fact", "laptop-only-fact"]);
    } finally {
      expect(await interrupt(r)).toBe(0);
    }
  }, 240_000);
});
