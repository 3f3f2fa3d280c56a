import { embedUi } from "./embed.ts" with { type: "macro" };
import type { UiBundle } from "./embed.ts";

/** The browser UI compiled into this binary (script and stylesheet gzipped, see embed.ts). */
const bundle: UiBundle = embedUi();

export const uiAssets = { html: bundle.html, digest: bundle.digest };

export type UiAssetKind = "js" | "css";
const gz: Partial<Record<UiAssetKind, Uint8Array<ArrayBuffer>>> = {};
const plain: Partial<Record<UiAssetKind, Uint8Array<ArrayBuffer>>> = {};

/** The asset as a browser that accepts gzip gets it (decoded from base64 once). */
export const uiAssetGzip = (kind: UiAssetKind): Uint8Array<ArrayBuffer> =>
  (gz[kind] ??= new Uint8Array(Buffer.from(kind === "js" ? bundle.jsGz : bundle.cssGz, "base64")));

/** The asset uncompressed, for the rare client that does not accept gzip (inflated once). */
export const uiAssetPlain = (kind: UiAssetKind): Uint8Array<ArrayBuffer> => (plain[kind] ??= new Uint8Array(Bun.gunzipSync(uiAssetGzip(kind))));
