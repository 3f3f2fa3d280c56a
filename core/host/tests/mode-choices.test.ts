// Which permission modes a front end offers a session: the selectable ones,
// and yolo only to a session already running in it (a config or command-line
// choice) — one rule (core/protocol/modes.ts modesOffered) for the shared
// dispatcher's /mode (web, ACP) and ACP's mode picker; the chat offers every mode.
import { expect, test } from "bun:test";
import { modeSelectable, modeState } from "../../acp/modes.ts";
import { modesOffered, PERMISSION_MODES, SELECTABLE_MODES } from "../../protocol/modes.ts";
import { runCommand } from "../commands/index.ts";
import { hostRig } from "./host-rig.ts";

const { setup } = hostRig();

test("yolo is offered only to a session already in it", () => {
  expect(modesOffered("ask")).toEqual(SELECTABLE_MODES);
  expect(modesOffered(undefined)).toEqual(SELECTABLE_MODES);
  expect(modesOffered("yolo")).toEqual([...SELECTABLE_MODES, "yolo"]);
});

test("ACP's mode picker and the dispatcher's /mode on web and ACP offer the same modes; the chat offers every mode", async () => {
  const { host } = await setup([]);
  const offered = async (surface: "web" | "acp" | "chat") => (await runCommand({ surface, host }, "mode"))!.choose!.items.map((i) => i.value);
  for (const mode of ["ask", "yolo"] as const) {
    host.setMode(mode);
    expect(await offered("web")).toEqual([...modesOffered(mode)]);
    expect(await offered("acp")).toEqual([...modesOffered(mode)]);
    expect(modeState(mode).availableModes.map((m) => m.id)).toEqual([...modesOffered(mode)]);
    expect(await offered("chat")).toEqual([...PERMISSION_MODES]);
  }
  expect(modeSelectable("ask", "yolo")).toBe(false);
  expect(modeSelectable("yolo", "yolo")).toBe(true);
  expect(modeSelectable("ask", "read-only")).toBe(true);
});
