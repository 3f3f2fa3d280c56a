import pkg from "../package.json" with { type: "json" };

export interface BuildInfo {
  version: string;
  commit: string;
  buildTime: string;
}

// Replaced by `bun build --define` in release builds; undefined when run from source.
declare const __REASONIX_BUILD__: BuildInfo | undefined;

export function buildInfo(): BuildInfo {
  if (typeof __REASONIX_BUILD__ !== "undefined") return __REASONIX_BUILD__;
  return { version: pkg.version, commit: "dev", buildTime: "" };
}

export const platformId = (): string => {
  const os = process.platform === "win32" ? "windows" : process.platform;
  return `${os}-${process.arch}`;
};
