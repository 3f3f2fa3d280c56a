/**
 * Test/bench helper: pace a netns link (netns.ts) with tc htb on both veth ends,
 * a real bandwidth limit in the kernel (queueing, TCP's own pacing) rather than a
 * relay's timers. Removed with the link.
 */
import { execFileSync } from "node:child_process";
import type { NetnsLink } from "./netns.ts";

export function shapeLink(link: NetnsLink, mbit: number): void {
  const run = (args: string[]) => execFileSync(args[0]!, args.slice(1), { stdio: ["ignore", "pipe", "pipe"] });
  for (const [prefix, dev] of [[[], link.hostIf], [["ip", "netns", "exec", link.ns], link.nsIf]] as [string[], string][]) {
    run([...prefix, "tc", "qdisc", "add", "dev", dev, "root", "handle", "1:", "htb", "default", "10"]);
    run([...prefix, "tc", "class", "add", "dev", dev, "parent", "1:", "classid", "1:10", "htb", "rate", `${mbit}mbit`, "ceil", `${mbit}mbit`]);
  }
}
