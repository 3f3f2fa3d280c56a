// The command catalog's types live in core/protocol/catalog.ts (browser-safe, types only).
export type * from "../protocol/catalog.ts";
