// Pictures over ACP: `image` content blocks reach the provider request as an
// image part when the session's model accepts images (and initialize says so);
// for a model that does not, or for bytes that are not the image they claim
// to be, session/prompt fails with invalid params naming the cause.
import * as acp from "@agentclientprotocol/sdk";
import { afterEach, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startScriptedOpenAI } from "../../testing/scripted-llm.ts";
import { STEER_METHOD } from "../agent.ts";
import { connect, initParams, makeAcpEnv } from "./helpers.ts";

const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";
const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function setup(vision: boolean) {
  const llm = await startScriptedOpenAI([{ text: "a red pixel" }]);
  const env = makeAcpEnv(llm.url);
  if (vision) {
    const file = join(env.home, "config.toml");
    writeFileSync(file, readFileSync(file, "utf8").replace('model = "scripted-model"', 'model = "scripted-model"\nvision = true'));
  }
  const c = connect(env);
  cleanups.push(() => env.cleanup(), () => llm.close(), () => c.close());
  const init = await c.conn.initialize(initParams());
  const s = await c.conn.newSession({ cwd: env.workspace, mcpServers: [] });
  return { llm, init, sessionId: s.sessionId, ...c };
}

const rejection = async (p: Promise<unknown>) => {
  try {
    await p;
  } catch (e) {
    return e as { code: number; message: string; data?: unknown };
  }
  throw new Error("expected the request to fail");
};

test("a vision model: image advertised, and an image block reaches the provider request as an image part", async () => {
  const { conn, llm, init, sessionId } = await setup(true);
  expect(init.agentCapabilities?.promptCapabilities?.image).toBe(true);
  const res = await conn.prompt({ sessionId, prompt: [{ type: "text", text: "what is this?" }, { type: "image", mimeType: "image/png", data: PNG }] });
  expect(res.stopReason).toBe("end_turn");
  const user = llm.chatRequests()[0]!.body.messages.findLast((m: { role: string }) => m.role === "user");
  expect(user.content).toContainEqual({ type: "image_url", image_url: { url: `data:image/png;base64,${PNG}` } });
  expect(JSON.stringify(user.content)).toContain("what is this?");
});

test("a model without vision: not advertised, and a prompt with an image is refused naming the model and the setting", async () => {
  const { conn, llm, init, sessionId } = await setup(false);
  expect(init.agentCapabilities?.promptCapabilities?.image).toBe(false);
  const e = await rejection(conn.prompt({ sessionId, prompt: [{ type: "text", text: "what is this?" }, { type: "image", mimeType: "image/png", data: PNG }] }));
  expect(e.code).toBe(-32602);
  expect(e.message).toContain('model scripted-model (provider "scripted") is not marked as accepting images');
  expect(e.message).toContain("set vision = true in its [[providers]] entry");
  expect(llm.chatRequests()).toHaveLength(0);
});

test("bytes that are not the image they claim to be, and images in steering, are invalid params", async () => {
  const { conn, sessionId } = await setup(true);
  const bad = await rejection(conn.prompt({ sessionId, prompt: [{ type: "text", text: "look" }, { type: "image", mimeType: "image/png", data: Buffer.from("not a picture").toString("base64") }] }));
  expect(bad.code).toBe(-32602);
  expect(bad.message).toContain("prompt[1]: image 1 is not a image/png image");
  const steer = await rejection(conn.extMethod(STEER_METHOD, { sessionId, prompt: [{ type: "image", mimeType: "image/png", data: PNG }] }));
  expect(steer.code).toBe(-32602);
  expect(steer.message).toContain("prompt[0]: image content is not supported here (pictures go in session/prompt)");
});
