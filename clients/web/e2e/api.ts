// The tests' own API client: the page's generated stubs over the same gRPC-Web transport,
// through Envoy, from Node (fetch).
import { createClient } from "@connectrpc/connect";
import { createGrpcWebTransport } from "@connectrpc/connect-web";
import { GameService } from "../src/gen/yggdrasil/v1/game_service_pb.js";

export function apiClient(url: string) {
  return createClient(GameService, createGrpcWebTransport({ baseUrl: url.replace(/\/$/, ""), useBinaryFormat: true }));
}
