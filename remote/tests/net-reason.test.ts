// A failed connect is named by its real cause (issue 34 item 6). Bun reports every
// failed TCP connect as ECONNREFUSED, so a host that is down on the local network
// (no ARP answer: the kernel says EHOSTUNREACH after ~3 s) read "connection refused
// … is sshd running?". The route and neighbour tables are asked instead. Unit tests
// only (no traffic): the command outputs below are real `ip` output, captured in a
// private network namespace.
import { describe, expect, test } from "bun:test";
import { describeNetError } from "../ssh/errors.ts";
import { neighbourFailed, nextHop, routeFailure, routeVerdict } from "../ssh/net-reason.ts";

describe("each socket error has its own message", () => {
  const msg = (code: string) => describeNetError(Object.assign(new Error(`connect ${code}`), { code }));
  test("unreachable host, unreachable network, timeout: never 'refused' or 'sshd'", () => {
    expect(msg("EHOSTUNREACH")).toMatch(/^no route to host/);
    expect(msg("ENETUNREACH")).toMatch(/^network unreachable/);
    expect(msg("ETIMEDOUT")).toMatch(/^timed out/);
    for (const c of ["EHOSTUNREACH", "ENETUNREACH", "ETIMEDOUT"]) expect(msg(c)).not.toMatch(/refused|sshd/);
  });
  test("refused is the only one that points at sshd", () => {
    expect(msg("ECONNREFUSED")).toMatch(/^connection refused .*is sshd running\?/);
  });
  test("the four messages are distinct", () => {
    expect(new Set(["EHOSTUNREACH", "ENETUNREACH", "ETIMEDOUT", "ECONNREFUSED"].map(msg)).size).toBe(4);
  });
});

describe("a 'refused' that was really a host down on the local network", () => {
  const onLink = "10.0.0.5 dev v0 src 10.0.0.1 uid 0 \n    cache \n";
  const viaGw = "10.5.1.1 via 10.0.0.254 dev v0 src 10.0.0.1 uid 0 \n    cache \n";

  test("the next hop is the host itself on-link, the gateway otherwise; loopback has none", () => {
    expect(nextHop(onLink, "10.0.0.5")).toEqual({ addr: "10.0.0.5", dev: "v0" });
    expect(nextHop(viaGw, "10.5.1.1")).toEqual({ addr: "10.0.0.254", dev: "v0" });
    expect(nextHop("local 127.0.0.2 dev lo src 127.0.0.1 uid 0 \n    cache <local> \n", "127.0.0.2")).toBeNull();
    expect(nextHop("", "10.0.0.5")).toBeNull();
  });

  test("a neighbour that never answered ARP is FAILED; a known or unknown one is not", () => {
    expect(neighbourFailed("10.0.0.7 dev v0 FAILED \n")).toBe(true);
    expect(neighbourFailed("10.0.0.254 FAILED \n")).toBe(true);
    expect(neighbourFailed("10.0.0.6 dev v0 lladdr 02:00:00:00:00:06 REACHABLE \n")).toBe(false);
    expect(neighbourFailed("10.0.0.5 dev v0 INCOMPLETE \n")).toBe(false); // still asking: no verdict yet
    expect(neighbourFailed("")).toBe(false);
  });

  test("the routing table's own verdicts", () => {
    expect(routeVerdict("RTNETLINK answers: Network is unreachable\n")).toBe("ENETUNREACH");
    expect(routeVerdict("RTNETLINK answers: No route to host\n")).toBe("EHOSTUNREACH");
    expect(routeVerdict(onLink)).toBeNull();
  });
});

describe("routeFailure asks the neighbour table when the route looks fine", () => {
  // Real `ip` answers, keyed by the command line (the same captures as above).
  const table = (answers: Record<string, string>) => async (cmd: string, args: string[]) => answers[[cmd, ...args].join(" ")] ?? "";

  test("a host on the local network that never answered ARP: EHOSTUNREACH, not 'refused'", async () => {
    const exec = table({
      "ip route get 10.0.0.7": "10.0.0.7 dev v0 src 10.0.0.1 uid 0 \n    cache \n",
      "ip neigh show 10.0.0.7 dev v0": "10.0.0.7 dev v0 FAILED \n",
    });
    expect(await routeFailure("10.0.0.7", exec, "linux")).toBe("EHOSTUNREACH");
  });

  test("a gateway that never answered ARP: EHOSTUNREACH", async () => {
    const exec = table({
      "ip route get 10.5.1.1": "10.5.1.1 via 10.0.0.254 dev v0 src 10.0.0.1 uid 0 \n    cache \n",
      "ip neigh show 10.0.0.254 dev v0": "10.0.0.254 FAILED \n",
    });
    expect(await routeFailure("10.5.1.1", exec, "linux")).toBe("EHOSTUNREACH");
  });

  test("a host that answers ARP really refused: null (the 'refused' message stands)", async () => {
    const exec = table({
      "ip route get 10.0.0.6": "10.0.0.6 dev v0 src 10.0.0.1 uid 0 \n    cache \n",
      "ip neigh show 10.0.0.6 dev v0": "10.0.0.6 dev v0 lladdr 02:00:00:00:00:06 REACHABLE \n",
    });
    expect(await routeFailure("10.0.0.6", exec, "linux")).toBeNull();
  });
});
