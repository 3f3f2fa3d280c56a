import { embedDocs, embedSandboxProfiles } from "./embed.ts" with { type: "macro" };
import type { EmbeddedTree, PackedTree } from "./embed.ts";

const docs: PackedTree = embedDocs();
let docFiles: Record<string, string> | undefined;

/** The user docs compiled into this binary (path → markdown), unpacked on first use. */
export const docsAssets: EmbeddedTree = {
  digest: docs.digest,
  get files() {
    return (docFiles ??= JSON.parse(new TextDecoder().decode(Bun.gunzipSync(Buffer.from(docs.packed, "base64")))) as Record<string, string>);
  },
};

/** The sandbox profiles compiled into this binary (path → text). */
export const sandboxProfileAssets: EmbeddedTree = embedSandboxProfiles();
