/**
 * `[[remote.hosts.forwards]]` entries of one host in the user config, edited
 * line by line inside that host's block so comments and every other setting
 * survive; each edit is re-parsed and checked before the atomic replace.
 */
import { parse } from "smol-toml";
import { ReasonixError, UsageError } from "../../core/errors.ts";
import { appendToHostBlock, findHostBlocks, renderHostBlock } from "../hosts/config-text.ts";
import { editUserConfig, getHost, userConfigPath } from "../hosts/store.ts";
import type { ForwardConfig, HostConfig } from "../hosts/types.ts";
import { formatEndpoint, parseEndpoint } from "./spec.ts";

const FORWARD_HEADER = /^\s*\[\[\s*remote\s*\.\s*hosts\s*\.\s*forwards\s*\]\]/;

const sameBind = (a: string, b: string): boolean => {
  try {
    return formatEndpoint(parseEndpoint(a, "bind")) === formatEndpoint(parseEndpoint(b, "bind"));
  } catch {
    return a === b;
  }
};

const forwardsOf = (hosts: HostConfig[], name: string) => hosts.find((h) => h.name === name)?.forwards ?? [];

export function listForwards(hostName: string): ForwardConfig[] {
  return getHost(hostName).forwards ?? [];
}

export function addForward(hostName: string, f: ForwardConfig, path = userConfigPath()): void {
  const existing = listForwards(hostName);
  const clash = existing.find((x) => x.type === f.type && sameBind(x.bind, f.bind));
  if (clash) {
    throw new ReasonixError("forward_exists", `${hostName} already has a ${f.type} forward bound to ${clash.bind} (to ${clash.target})`, {
      hint: `remove it first: reasonix remote forward rm ${hostName} ${clash.bind}`,
    });
  }
  editUserConfig(
    (text) => {
      const out = appendToHostBlock(text, hostName, ["", ...renderHostBlock(f as unknown as Record<string, unknown>, "[[remote.hosts.forwards]]")]);
      if (out === null) throw new ReasonixError("host_not_found", `cannot locate the [[remote.hosts]] block for "${hostName}" in ${path}`);
      return out;
    },
    (before, after) => {
      const b = forwardsOf(before, hostName);
      const a = forwardsOf(after, hostName);
      return a.length === b.length + 1 && JSON.stringify(a[a.length - 1]) === JSON.stringify(f) ? null : "the new forward did not read back";
    },
    path,
  );
}

/** Remove every forward of the host bound to BIND; returns what was removed. */
export function removeForward(hostName: string, bind: string, path = userConfigPath()): ForwardConfig[] {
  getHost(hostName);
  const removed = listForwards(hostName).filter((x) => sameBind(x.bind, bind));
  if (removed.length === 0) {
    throw new UsageError(`${hostName} has no forward bound to ${bind}`, `see: reasonix remote forward ls ${hostName}`);
  }
  editUserConfig(
    (text) => {
      const block = findHostBlocks(text).find((b) => b.name === hostName);
      if (!block) throw new ReasonixError("host_not_found", `cannot locate the [[remote.hosts]] block for "${hostName}" in ${path}`);
      const lines = text.split("\n");
      const drop: [number, number][] = [];
      for (let i = block.start; i < block.end; i++) {
        if (!FORWARD_HEADER.test(lines[i]!)) continue;
        let j = i + 1;
        while (j < block.end && !/^\s*\[/.test(lines[j]!)) j++;
        let end = j;
        while (end > i + 1 && (lines[end - 1]!.trim() === "" || lines[end - 1]!.trim().startsWith("#"))) end--;
        let entryBind: unknown;
        try {
          const data = parse(lines.slice(i, end).join("\n").replace(FORWARD_HEADER, "[x]")) as { x?: { bind?: unknown } };
          entryBind = data.x?.bind;
        } catch {}
        if (typeof entryBind === "string" && sameBind(entryBind, bind)) {
          // Take the blank line before it too, so the file does not collect gaps.
          const from = i > block.start + 1 && lines[i - 1]!.trim() === "" ? i - 1 : i;
          drop.push([from, end]);
        }
        i = j - 1;
      }
      for (const [from, to] of drop.reverse()) lines.splice(from, to - from);
      return lines.join("\n");
    },
    (before, after) => {
      const b = forwardsOf(before, hostName);
      const a = forwardsOf(after, hostName);
      const kept = b.filter((x) => !sameBind(x.bind, bind));
      return JSON.stringify(a) === JSON.stringify(kept) ? null : "the forward was not removed cleanly";
    },
    path,
  );
  return removed;
}
