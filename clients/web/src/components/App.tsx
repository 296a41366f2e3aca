// Routes by the URL's hash: #/ lobby, #/game/ID play (or watch without a seat), #/watch/ID.
import { useEffect, useMemo, useState } from "preact/hooks";
import { CatalogCache, type GameClient } from "../api.js";
import { SeatTokens } from "../tokens.js";
import { GameByKind } from "./GameByKind.js";
import { Lobby } from "./Lobby.js";
import { ReplayPage } from "./Replay.js";

export type Route =
  | { page: "lobby" }
  | { page: "game"; gameId: string; spectate: boolean }
  | { page: "replay"; gameId: string };

export function parseRoute(hash: string): Route {
  const match = /^#\/(game|watch|replay)\/([A-Za-z0-9_-]+)/.exec(hash);
  if (!match) return { page: "lobby" };
  if (match[1] === "replay") return { page: "replay", gameId: match[2] };
  return { page: "game", gameId: match[2], spectate: match[1] === "watch" };
}

export function App(props: { client: GameClient }) {
  const [hash, setHash] = useState(window.location.hash);
  useEffect(() => {
    const onHash = () => setHash(window.location.hash);
    window.addEventListener("hashchange", onHash);
    return () => window.removeEventListener("hashchange", onHash);
  }, []);
  const tokens = useMemo(() => new SeatTokens(), []);
  const catalogs = useMemo(() => new CatalogCache(props.client), [props.client]);
  const go = (next: string) => {
    window.location.hash = next;
  };
  const route = parseRoute(hash);
  if (route.page === "lobby") return <Lobby client={props.client} tokens={tokens} go={go} />;
  if (route.page === "replay")
    return <ReplayPage key={route.gameId} client={props.client} catalogs={catalogs} gameId={route.gameId} />;
  return (
    <GameByKind
      key={`${route.gameId}/${route.spectate}`}
      client={props.client}
      catalogs={catalogs}
      tokens={tokens}
      gameId={route.gameId}
      spectate={route.spectate}
    />
  );
}
