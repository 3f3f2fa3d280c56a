// The engine's front-end contract lives in core/protocol/contract.ts (browser-safe,
// types only); engine code and front ends keep importing it from here.
export type * from "../protocol/contract.ts";
