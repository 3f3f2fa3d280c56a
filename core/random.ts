/** `bytes` random bytes as hex (ids, temp names, secrets): the platform's CSPRNG, no node:crypto import. */
export const randomHex = (bytes: number): string => Buffer.from(crypto.getRandomValues(new Uint8Array(bytes))).toString("hex");
