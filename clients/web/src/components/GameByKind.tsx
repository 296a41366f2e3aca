// The game page of whichever game the URL names: one spectator's GetView tells its kind, then
// that game's page draws it (Blood Rage: Game.tsx; Fire & Axe: fae/FaeGame.tsx).
import { useEffect, useState } from "preact/hooks";
import type { CatalogCache, GameClient } from "../api.js";
import { FaeGamePage } from "../fae/FaeGame.js";
import { GameKind } from "../gen/yggdrasil/v1/game_pb.js";
import type { SeatTokens } from "../tokens.js";
import { GamePage } from "./Game.js";

export function GameByKind(props: {
  client: GameClient;
  catalogs: CatalogCache;
  tokens: SeatTokens;
  gameId: string;
  spectate: boolean;
}) {
  const { client, gameId } = props;
  const [kind, setKind] = useState<GameKind>();
  useEffect(() => {
    let live = true;
    client
      .getView({ gameId, viewer: { case: "spectator", value: {} } })
      .then((reply) => live && setKind(reply.view?.kind ?? GameKind.BLOOD_RAGE))
      // Unknown game, server away…: Blood Rage's page says what is wrong and retries.
      .catch(() => live && setKind(GameKind.BLOOD_RAGE));
    return () => {
      live = false;
    };
  }, [client, gameId]);
  if (kind === undefined) return <main class="game"><p class="muted">Loading the game…</p></main>;
  if (kind === GameKind.FIRE_AND_AXE) return <FaeGamePage client={client} tokens={props.tokens} gameId={gameId} spectate={props.spectate} />;
  return <GamePage {...props} />;
}
