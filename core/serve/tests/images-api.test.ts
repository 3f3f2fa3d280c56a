// Pictures with a prompt over the serve API: each one is sniffed (PNG, JPEG,
// GIF or WebP by its bytes, whatever it claims), at most 5 MiB, at most 10 in
// a message and 20 MiB together; a failure is a 4xx naming the image and the
// limit, and nothing reaches the model. A body past the route's limit is a 413
// with a sentence, and ordinary routes keep their 4 MiB limit.
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { MAX_IMAGE_BYTES } from "../../providers/images.ts";
import { startApiRig, type ApiRig } from "./api-rig.ts";
import { waitFor } from "./helpers.ts";

setDefaultTimeout(60_000);
let rig: ApiRig;
beforeAll(async () => {
  rig = await startApiRig("images-api", { providerToml: "vision = true\n" });
});
afterAll(async () => {
  await rig?.close();
});

const PNG_HEAD = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
/** A buffer that sniffs as PNG, `size` bytes long. */
const pngOf = (size: number) => Buffer.concat([PNG_HEAD, Buffer.alloc(size - PNG_HEAD.length)]).toString("base64");
const GIF = Buffer.concat([Buffer.from("GIF89a", "latin1"), Buffer.alloc(20)]).toString("base64");

async function session(): Promise<string> {
  return ((await (await rig.request("/api/sessions", "POST", {})).json()) as { id: string }).id;
}

test("a non-image, a mislabelled image, one over 5 MiB, eleven images, 20 MiB together: each refused by name, nothing sent", async () => {
  const id = await session();
  const prompt = (images: unknown[]) => rig.call(`/api/sessions/${id}/prompt`, "POST", { prompt: "see", images });
  const text = await prompt([{ mediaType: "image/png", data: Buffer.from("just some text, renamed shot.png").toString("base64"), name: "shot.png" }]);
  expect(text.status).toBe(400);
  expect(text.body.error.code).toBe("bad_image");
  expect(text.body.error.message).toContain("shot.png is not a image/png image");
  const gifAsPng = await prompt([{ mediaType: "image/png", data: GIF }]);
  expect(gifAsPng.status).toBe(400);
  expect(gifAsPng.body.error.message).toContain("images[0] is not a image/png image");
  const big = await prompt([{ mediaType: "image/png", data: pngOf(MAX_IMAGE_BYTES + 1), name: "huge.png" }]);
  expect(big.status).toBe(400);
  expect(big.body.error.message).toContain("huge.png is 5.0 MiB; images may be at most 5 MiB");
  const many = await prompt(Array.from({ length: 11 }, () => ({ mediaType: "image/gif", data: GIF })));
  expect(many.status).toBe(400);
  expect(many.body.error.message).toContain("at most 10");
  const heavy = await prompt(Array.from({ length: 5 }, () => ({ mediaType: "image/png", data: pngOf(4.1 * 1048576) })));
  expect(heavy.status).toBe(400);
  expect(heavy.body.error.message).toContain("the images of one message add up to 20.5 MiB; at most 20 MiB together");
  // Six of almost 5 MiB do not fit the prompt route's body: a 413 that says why.
  const body = await prompt(Array.from({ length: 6 }, () => ({ mediaType: "image/png", data: pngOf(MAX_IMAGE_BYTES - 16) })));
  expect(body.status).toBe(413);
  expect(body.body.error.message).toContain("the pictures of one message may add up to 20 MiB");
  expect(rig.llm.chatRequests()).toHaveLength(0);
});

test("four images of almost 5 MiB go through (the prompt route's body limit fits them); other routes keep 4 MiB; past the limit is a 413", async () => {
  const id = await session();
  rig.llm.push({ text: "four pictures" });
  const four = Array.from({ length: 4 }, () => ({ mediaType: "image/png", data: pngOf(MAX_IMAGE_BYTES - 16) }));
  const ok = await rig.call(`/api/sessions/${id}/prompt`, "POST", { prompt: "see all", images: four });
  expect(ok.status).toBe(202);
  const sent = await waitFor("the request", () => rig.llm.chatRequests()[0], 30_000);
  const parts = sent.body.messages.at(-1).content as { type: string }[];
  expect(parts.filter((p) => p.type === "image_url")).toHaveLength(4);
  // The same weight on an ordinary route: refused before it is read.
  const note = await rig.call("/api/note", "POST", { text: "x".repeat(5 * 1024 * 1024) });
  expect(note.status).toBe(413);
  expect(note.body.error).toMatchObject({ code: "body_too_large", message: "request body is larger than 4 MiB" });
  const huge = await rig.call(`/api/sessions/${id}/prompt`, "POST", { prompt: "x".repeat(31 * 1024 * 1024) });
  expect(huge.status).toBe(413);
  expect(huge.body.error.code).toBe("body_too_large");
});
