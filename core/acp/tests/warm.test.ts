// The prompt-path warm-up (core/acp/warm.ts): a throwaway agent answers one
// made-up prompt on an in-memory stream and closes by itself; nothing of it
// reaches a real connection (the SDK-client suites read every frame).
import { expect, test } from "bun:test";
import { warmPromptPath } from "../warm.ts";

test("the warm-up answers its one prompt and closes by itself, every time", async () => {
  expect(await warmPromptPath()).toBe(true);
  expect(await warmPromptPath()).toBe(true);
});
