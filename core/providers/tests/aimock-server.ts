// A third-party mock LLM server (@copilotkit/aimock) for a test file: started
// once on loopback, reset before each test, stopped after the file.
import { afterAll, beforeAll, beforeEach } from "bun:test";
import { LLMock } from "@copilotkit/aimock";

/** The file's server; `onReset` adds what every test expects after each reset. */
export function aimockServer(onReset?: (mock: LLMock) => void): LLMock {
  const mock = new LLMock({ port: 0, host: "127.0.0.1" } as any);
  beforeAll(async () => {
    await mock.start();
  });
  afterAll(async () => {
    await mock.stop();
  });
  beforeEach(() => {
    mock.reset();
    onReset?.(mock);
  });
  return mock;
}

/** The base URL a provider of `kind` is configured with (the OpenAI-style kinds under /v1). */
export const aimockBase = (mock: LLMock, kind: string): string => (kind === "anthropic" ? mock.url : `${mock.url}/v1`);
