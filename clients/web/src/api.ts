// The API client: @connectrpc/connect-web's gRPC-Web transport over the generated service
// descriptor. The page talks to Envoy at its own origin unless told otherwise (?api=URL, or
// VITE_YGGDRASIL_API at build time for a Vite dev server).
import { createClient, type Client, type Interceptor } from "@connectrpc/connect";
import { createGrpcWebTransport } from "@connectrpc/connect-web";
import { GameService } from "./gen/yggdrasil/v1/game_service_pb.js";
import type { BloodRageCatalog } from "./gen/yggdrasil/v1/blood_rage_pb.js";

export type GameClient = Client<typeof GameService>;

export function apiBaseUrl(location: Location = window.location): string {
  const fromQuery = new URLSearchParams(location.search).get("api");
  if (fromQuery) return fromQuery.replace(/\/$/, "");
  const fromBuild = import.meta.env.VITE_YGGDRASIL_API as string | undefined;
  if (fromBuild) return fromBuild.replace(/\/$/, "");
  return location.origin;
}

/** The header a cluster's Envoy hashes to find the node that owns a game (docs/cluster.md). */
export const GAME_ID_HEADER = "x-game-id";

/** Adds `x-game-id` to every unary call whose request names a game (WatchGame, a stream, sets
 *  it itself: see session.ts). */
export const gameIdHeader: Interceptor = (next) => async (req) => {
  if (!req.stream) {
    const gameId = (req.message as { gameId?: unknown }).gameId;
    if (typeof gameId === "string" && gameId && !req.header.has(GAME_ID_HEADER)) {
      req.header.set(GAME_ID_HEADER, gameId);
    }
  }
  return next(req);
};

export function createGameClient(baseUrl: string): GameClient {
  return createClient(
    GameService,
    createGrpcWebTransport({ baseUrl, useBinaryFormat: true, interceptors: [gameIdHeader] }),
  );
}

/** Random URL-safe text from the browser's secure source (also outside secure contexts,
 *  where crypto.randomUUID is missing). */
export function randomKey(bytes = 16): string {
  const raw = crypto.getRandomValues(new Uint8Array(bytes));
  let text = "";
  for (const b of raw) text += String.fromCharCode(b);
  return btoa(text).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** The static data (cards, areas) views refer to; fetched once per page. */
export class CatalogCache {
  private pending: Promise<BloodRageCatalog> | undefined;

  constructor(private readonly client: GameClient) {}

  get(): Promise<BloodRageCatalog> {
    if (!this.pending) {
      this.pending = this.client.getCatalog({}).then((reply) => {
        if (reply.game.case !== "bloodRage") throw new Error("the server sent no Blood Rage catalog");
        return reply.game.value;
      });
      this.pending.catch(() => (this.pending = undefined));
    }
    return this.pending;
  }
}
