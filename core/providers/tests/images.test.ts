// Image input: each kind's wire shape against the scripted servers, and
// `@shot.png` through the engine (vision models only, size and type checks).
import { afterEach, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { collect, engineFor, makeSandbox } from "../../engine/tests/helpers.ts";
import { startScriptedOpenAI } from "../../testing/scripted-llm.ts";
import { startScriptedAnthropic } from "../../testing/scripted-llm-anthropic.ts";
import { startScriptedResponses } from "../../testing/scripted-llm-responses.ts";
import { createProvider, type ChatRequest } from "../index.ts";
import { imageFromBase64, MAX_IMAGE_BYTES, responsesImagePart, type ImageInput } from "../images.ts";

const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";
const img: ImageInput = { mediaType: "image/png", data: PNG, name: "shot.png" };
const web: ImageInput = { mediaType: "image/jpeg", url: "https://example.com/a.jpg" };
const req = (): ChatRequest => ({ system: "SYS", tools: [], messages: [{ role: "user", content: "what is this?", images: [img, web] }] });
const signal = () => new AbortController().signal;

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe("image parts on the wire", () => {
  test("chat completions: image_url with a data URL or the URL", async () => {
    const llm = await startScriptedOpenAI([{ text: "a dot" }]);
    cleanups.push(() => llm.close());
    await createProvider({ name: "o", kind: "openai", model: "m", base_url: llm.url, vision: true }, { secret: () => undefined }).chat(req(), {}, signal());
    expect(llm.chatRequests()[0]!.body.messages[1]).toEqual({
      role: "user",
      content: [
        { type: "text", text: "what is this?" },
        { type: "image_url", image_url: { url: `data:image/png;base64,${PNG}` } },
        { type: "image_url", image_url: { url: "https://example.com/a.jpg" } },
      ],
    });
  });

  test("anthropic: image blocks with a base64 or url source", async () => {
    const llm = await startScriptedAnthropic([{ text: "a dot" }]);
    cleanups.push(() => llm.close());
    await createProvider({ name: "a", kind: "anthropic", model: "m", base_url: llm.url, vision: true }, { secret: () => undefined }).chat(req(), {}, signal());
    const content = llm.chatRequests()[0]!.body.messages[0].content;
    expect(content[0]).toEqual({ type: "text", text: "what is this?" });
    expect(content[1]).toEqual({ type: "image", source: { type: "base64", media_type: "image/png", data: PNG } });
    // The last block of the newest user turn carries the cache breakpoint.
    expect(content[2]).toMatchObject({ type: "image", source: { type: "url", url: "https://example.com/a.jpg" } });
  });

  test("responses: input_text and input_image", async () => {
    const llm = await startScriptedResponses([{ text: "a dot" }]);
    cleanups.push(() => llm.close());
    await createProvider({ name: "r", kind: "responses", model: "m", base_url: llm.url, vision: true }, { secret: () => undefined }).chat(req(), {}, signal());
    expect(llm.chatRequests()[0]!.body.input[0]).toEqual({
      role: "user",
      content: [
        { type: "input_text", text: "what is this?" },
        { type: "input_image", image_url: `data:image/png;base64,${PNG}`, detail: "auto" },
        { type: "input_image", image_url: "https://example.com/a.jpg", detail: "auto" },
      ],
    });
    // The official SDK's type for the part (detail is required there); tsc checks this line.
    const typed: import("openai/resources/responses/responses").ResponseInputImage = responsesImagePart(imageFromBase64(PNG, "image/png"));
    expect(typed.detail).toBe("auto");
  });

  test("pasted images: size and type are checked", () => {
    expect(imageFromBase64(PNG, "image/png").mediaType).toBe("image/png");
    expect(() => imageFromBase64(Buffer.from("not a picture").toString("base64"), "image/png")).toThrow(/is not a image\/png image/);
    expect(() => imageFromBase64(Buffer.alloc(MAX_IMAGE_BYTES + 1).toString("base64"), "image/png")).toThrow(/images may be at most 5 MiB/);
  });
});

describe("@image.png through the engine", () => {
  async function session(vision: boolean) {
    const sb = makeSandbox();
    const llm = await startScriptedOpenAI([{ text: "a dot" }, { text: "again" }]);
    const engine = engineFor(sb, llm.url, { providerExtra: { vision } });
    cleanups.push(() => sb.cleanup(), () => llm.close(), () => engine.close());
    writeFileSync(join(sb.workspace, "shot.png"), Buffer.from(PNG, "base64"));
    writeFileSync(join(sb.workspace, "fake.png"), "just text");
    const s = await engine.createSession();
    return { sb, llm, s, events: collect(s) };
  }

  test("a vision model gets the picture; it stays in the replayed conversation", async () => {
    const { llm, s } = await session(true);
    expect(await s.submit("look at @shot.png please")).toBe("done");
    await s.submit("and now?");
    for (const r of llm.chatRequests()) {
      const user = r.body.messages.find((m: any) => m.role === "user" && Array.isArray(m.content));
      expect(user.content.find((p: any) => p.type === "image_url").image_url.url).toBe(`data:image/png;base64,${PNG}`);
    }
  });

  test("a model not marked vision: the turn fails saying so, nothing is sent", async () => {
    const { llm, s, events } = await session(false);
    expect(await s.submit("look at @shot.png")).toBe("error");
    expect(llm.chatRequests()).toHaveLength(0);
    const err = events.find((e) => e.type === "error") as any;
    expect(err.message).toContain("is not marked as accepting images, so shot.png cannot be sent");
    expect(err.message).toContain("vision = true");
  });

  test("a file named .png that is not an image is refused; a missing one stays literal", async () => {
    const { llm, s, events } = await session(true);
    expect(await s.submit("see @fake.png")).toBe("error");
    expect((events.find((e) => e.type === "error") as any).message).toContain("fake.png is not a PNG, JPEG, GIF or WebP image");
    expect(await s.submit("see @missing.png")).toBe("done");
    expect(llm.chatRequests()[0]!.body.messages.at(-1)).toMatchObject({ role: "user", content: expect.stringContaining("@missing.png") });
  });
});
