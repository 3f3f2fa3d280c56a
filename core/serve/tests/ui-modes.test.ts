// The web UI's mode control offers what the shared dispatcher offers
// (core/protocol modesOffered): a session the chat put in yolo (Ctrl-Y, or
// /mode yolo, with /web open on the same host) shows yolo, by name, in the
// browser instead of a control that matches none of its options.
import { afterEach, expect, test } from "bun:test";
import { modeOptions } from "../ui/src/modes.ts";
import { LANGUAGES, setLanguage } from "../../protocol/i18n/index.ts";
import { modesOffered, SELECTABLE_MODES } from "../../protocol/modes.ts";

afterEach(() => setLanguage("en"));

test("the mode control lists the modes offered to the session, yolo included when it runs in yolo", () => {
  expect(modeOptions(null).map(([m]) => m)).toEqual([...SELECTABLE_MODES]);
  expect(modeOptions("ask").map(([m]) => m)).toEqual([...modesOffered("ask")]);
  expect(modeOptions("yolo").map(([m]) => m)).toEqual([...modesOffered("yolo")]);
  for (const lang of LANGUAGES) {
    setLanguage(lang);
    for (const [m, label] of modeOptions("yolo")) expect({ m, label: label === `web.mode.${m}` ? "no label" : "labelled" }).toEqual({ m, label: "labelled" });
  }
});
