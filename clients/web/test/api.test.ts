import { describe, expect, it } from "vitest";
import { GAME_ID_HEADER, gameIdHeader } from "../src/api.js";

// What the interceptor needs of a request: whether it streams, its message, its headers.
function request(stream: boolean, message: unknown) {
  return { stream, message, header: new Headers() } as never;
}

describe("the x-game-id header", () => {
  it("is set from a unary request's game id, for a cluster's proxy to hash", async () => {
    const req = request(false, { gameId: "abc123" });
    let seen: Headers | undefined;
    await gameIdHeader(async (r) => {
      seen = (r as unknown as { header: Headers }).header;
      return undefined as never;
    })(req);
    expect(seen?.get(GAME_ID_HEADER)).toBe("abc123");
  });

  it("is left out when the request names no game", async () => {
    const req = request(false, { pageSize: 50 });
    await gameIdHeader(async () => undefined as never)(req);
    expect((req as unknown as { header: Headers }).header.has(GAME_ID_HEADER)).toBe(false);
  });
});
