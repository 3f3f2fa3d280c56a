// The chat's pasted pictures (cli/chat/pasted-images.ts): tokens numbered in
// paste order, the pictures sent are those whose tokens are still in the text,
// in the text's order and each once; a clipboard that holds no picture, or
// bytes that are not one, give a sentence and no token.
import { expect, test } from "bun:test";
import { PastedImages } from "../chat/pasted-images.ts";

const PNG = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==", "base64");
const GIF = Buffer.from("R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7", "base64");

test("tokens in paste order; sent in the text's order, each once; a deleted token sends nothing", async () => {
  const clips = [PNG, GIF, PNG];
  const p = new PastedImages(async () => ({ ok: true, data: clips.shift()! }));
  expect(await p.paste()).toEqual({ token: "[image #1]" });
  expect(await p.paste()).toEqual({ token: "[image #2]" });
  expect(await p.paste()).toEqual({ token: "[image #3]" });
  const sent = p.images("second [image #2], first [image #1], again [image #2]");
  expect(sent.map((i) => [i.name, i.mediaType])).toEqual([["image #2", "image/gif"], ["image #1", "image/png"]]);
  expect(p.options("no pictures here, [image #9] is unknown")).toBeUndefined();
  expect(p.options("[image #3")).toBeUndefined();
});

test("no picture on the clipboard, or text that is not one: a sentence, no token", async () => {
  const none = new PastedImages(async () => ({ ok: false, message: "the clipboard holds no picture" }));
  expect(await none.paste()).toEqual({ error: "the clipboard holds no picture" });
  const text = new PastedImages(async () => ({ ok: true, data: Buffer.from("just text") }));
  expect(await text.paste()).toEqual({ error: "the clipboard's content is not a PNG, JPEG, GIF or WebP picture" });
  const broken = new PastedImages(async () => {
    throw new Error("spawn failed");
  });
  expect(await broken.paste()).toEqual({ error: "cannot read the clipboard: spawn failed" });
});
