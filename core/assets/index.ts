import { embedDocs, embedSandboxProfiles } from "./embed.ts" with { type: "macro" };
import type { EmbeddedTree } from "./embed.ts";

/** The user docs compiled into this binary (path → markdown). */
export const docsAssets: EmbeddedTree = embedDocs();

/** The sandbox profiles compiled into this binary (path → text). */
export const sandboxProfileAssets: EmbeddedTree = embedSandboxProfiles();
