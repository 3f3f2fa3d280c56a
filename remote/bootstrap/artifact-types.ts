/** The executable shipped to a remote host and how it travels (artifact.ts builds it, stream-compress.ts packs it). */
export type Codec = "zstd" | "gzip" | "raw";

export interface BinaryArtifact {
  platform: string;
  version: string;
  /** Local path of the raw executable. */
  path: string;
  size: number;
  sha256: string;
  /** Where it came from, for messages. */
  source: string;
}
