// The lobby: the games on the server (refreshed every few seconds), a form to create one,
// buttons to join a free seat, resume a seat held in this browser, or watch.
import { useEffect, useState } from "preact/hooks";
import { ConnectError } from "@connectrpc/connect";
import type { GameClient } from "../api.js";
import { DraftMode } from "../gen/yggdrasil/v1/blood_rage_pb.js";
import type { GameSummary } from "../gen/yggdrasil/v1/game_pb.js";
import { GameKind, GameStatus } from "../gen/yggdrasil/v1/game_pb.js";
import { DEFAULT_CHOICES, FaeCreateOptions, faeOptions, type FaeChoices } from "../fae/FaeCreate.js";
import { SeatMark } from "../fae/FaeGame.js";
import { seatOf } from "../fae/names.js";
import { clanOf, statusName } from "../names.js";
import { joinSeat } from "../session.js";
import type { SeatTokens } from "../tokens.js";
import { ClanMark } from "./Panels.js";

/** Seats created with this name are played by the bots of `make web` (scripts/web.py). */
export const BOT_NAME = "bot";

function isBotSeat(name: string): boolean {
  return name.toLowerCase().startsWith(BOT_NAME);
}

/** A seat's name in its game: Blood Rage's clans, Fire & Axe's colours. */
function seatName(kind: GameKind, seat: number): string {
  return kind === GameKind.FIRE_AND_AXE ? seatOf(seat).name : clanOf(seat).name;
}

function Mark(props: { kind: GameKind; seat: number }) {
  return props.kind === GameKind.FIRE_AND_AXE ? <SeatMark seat={props.seat} /> : <ClanMark seat={props.seat} />;
}

const GAME_NAMES: Record<number, string> = {
  [GameKind.BLOOD_RAGE]: "Blood Rage",
  [GameKind.FIRE_AND_AXE]: "Fire & Axe",
};

export function CreateForm(props: { client: GameClient; tokens: SeatTokens; go: (hash: string) => void }) {
  const { client, tokens, go } = props;
  const [players, setPlayers] = useState(2);
  const [name, setName] = useState(() => window.localStorage.getItem("yggdrasil.name") ?? "");
  const [others, setOthers] = useState<"bots" | "people">("bots");
  const [game, setGame] = useState<"bloodRage" | "fireAndAxe">("bloodRage");
  const [fae, setFae] = useState<FaeChoices>(DEFAULT_CHOICES);
  const [noDraft, setNoDraft] = useState(false);
  const [limit, setLimit] = useState(0);
  const [seed, setSeed] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();

  const create = async (join: boolean) => {
    setBusy(true);
    setError(undefined);
    try {
      window.localStorage.setItem("yggdrasil.name", name);
      const seatNames = Array.from({ length: players }, (_, seat) =>
        seat === 0 && join ? name : others === "bots" && (join ? seat > 0 : true) ? BOT_NAME : "",
      );
      const reply = await client.createGame({
        options: {
          playerCount: players,
          seed: /^\d+$/.test(seed.trim()) ? BigInt(seed.trim()) : undefined,
          decisionTimeLimitMs: BigInt(limit * 1000),
          seatNames,
          game:
            game === "fireAndAxe"
              ? { case: "fireAndAxe", value: faeOptions(fae) }
              : { case: "bloodRage", value: { draftMode: noDraft ? DraftMode.NO_DRAFT : DraftMode.NORMAL } },
        },
      });
      if (join) await joinSeat(client, tokens, reply.gameId, 0, name);
      go(`#/game/${reply.gameId}`);
    } catch (e) {
      setError(ConnectError.from(e).rawMessage);
    } finally {
      setBusy(false);
    }
  };

  return (
    <form
      class="panel create"
      aria-label="New game"
      onSubmit={(e) => {
        e.preventDefault();
        void create(true);
      }}
    >
      <h2>New game</h2>
      <label>
        Game
        <select name="game" value={game} onChange={(e) => setGame(e.currentTarget.value as "bloodRage" | "fireAndAxe")}>
          <option value="bloodRage">Blood Rage</option>
          <option value="fireAndAxe">Fire &amp; Axe: A Viking Saga</option>
        </select>
      </label>
      <label>
        Your name <input name="name" value={name} maxLength={40} onInput={(e) => setName(e.currentTarget.value)} />
      </label>
      <label>
        Players
        <select name="players" value={players} onChange={(e) => setPlayers(Number(e.currentTarget.value))}>
          {[2, 3, 4, 5].map((n) => (
            <option value={n}>{n}</option>
          ))}
        </select>
      </label>
      <fieldset>
        <legend>The other seats</legend>
        <label>
          <input type="radio" name="others" checked={others === "bots"} onChange={() => setOthers("bots")} /> bots
        </label>
        <label>
          <input type="radio" name="others" checked={others === "people"} onChange={() => setOthers("people")} /> people
        </label>
      </fieldset>
      {game === "bloodRage" ? (
        <label>
          <input type="checkbox" name="nodraft" checked={noDraft} onChange={(e) => setNoDraft(e.currentTarget.checked)} /> no draft
          (first-game variant)
        </label>
      ) : (
        <FaeCreateOptions client={client} value={fae} onChange={setFae} />
      )}
      <label>
        Time per decision
        <select name="limit" value={limit} onChange={(e) => setLimit(Number(e.currentTarget.value))}>
          <option value={0}>no limit</option>
          <option value={30}>30 s</option>
          <option value={60}>1 min</option>
          <option value={120}>2 min</option>
        </select>
      </label>
      <label>
        Seed <input name="seed" inputMode="numeric" placeholder="random" value={seed} size={10} onInput={(e) => setSeed(e.currentTarget.value)} />
      </label>
      <div class="buttons">
        <button type="submit" disabled={busy}>
          Create and play
        </button>
        <button type="button" disabled={busy} onClick={() => void create(false)}>
          Create only
        </button>
      </div>
      {error ? <p class="error">{error}</p> : null}
      <p class="hint">Bot seats are played by the bots of <code>make web</code>.</p>
    </form>
  );
}

function GameRow(props: {
  game: GameSummary;
  client: GameClient;
  tokens: SeatTokens;
  go: (hash: string) => void;
  setError: (text: string) => void;
}) {
  const { game, client, tokens, go, setError } = props;
  const mine = tokens.get(game.gameId);
  const open = game.status === GameStatus.OPEN;
  const finished = game.status === GameStatus.FINISHED;
  const join = async (seat: number) => {
    try {
      const name = window.localStorage.getItem("yggdrasil.name") ?? "";
      await joinSeat(client, tokens, game.gameId, seat, name);
      go(`#/game/${game.gameId}`);
    } catch (e) {
      setError(ConnectError.from(e).rawMessage);
    }
  };
  return (
    <tr data-game={game.gameId}>
      <td>
        <code>{game.gameId}</code>
        <div class={`status status-${GameStatus[game.status]}`}>{statusName(game.status)}</div>
        <div class="game-kind">{GAME_NAMES[game.kind] ?? "?"}</div>
      </td>
      <td>
        <div class="seats">
          {game.seats.map((s) => (
            <span class="seat">
              <Mark kind={game.kind} seat={s.seat} /> {s.name || seatName(game.kind, s.seat)}
              {s.claimed ? "" : isBotSeat(s.name) ? " (bot, free)" : " (free)"}
            </span>
          ))}
        </div>
      </td>
      <td>
        <div class="row-actions">
          {mine ? (
            <button onClick={() => go(`#/game/${game.gameId}`)}>
              {finished ? "See the result" : `Resume as ${seatName(game.kind, mine.seat)}`}
            </button>
          ) : open ? (
            game.seats
              .filter((s) => !s.claimed && !isBotSeat(s.name))
              .map((s) => <button onClick={() => void join(s.seat)}>Join as {seatName(game.kind, s.seat)}</button>)
          ) : null}
          <button class="secondary" onClick={() => go(`#/watch/${game.gameId}`)}>
            {finished ? "View" : "Watch"}
          </button>
          {finished ? (
            <button class="secondary replay-link" onClick={() => go(`#/replay/${game.gameId}`)}>
              Replay
            </button>
          ) : null}
        </div>
      </td>
    </tr>
  );
}

export function Lobby(props: { client: GameClient; tokens: SeatTokens; go: (hash: string) => void }) {
  const { client, tokens, go } = props;
  const [games, setGames] = useState<GameSummary[]>();
  const [error, setError] = useState<string>();
  useEffect(() => {
    let live = true;
    const load = async () => {
      try {
        const reply = await client.listGames({ pageSize: 50 });
        if (live) {
          setGames(reply.games);
          setError(undefined);
        }
      } catch (e) {
        if (live) setError(`Cannot reach the server: ${ConnectError.from(e).rawMessage}`);
      }
    };
    void load();
    const timer = setInterval(load, 3000);
    return () => {
      live = false;
      clearInterval(timer);
    };
  }, [client]);
  return (
    <main class="lobby">
      <h1>Yggdrasil · Blood Rage · Fire &amp; Axe</h1>
      <div class="lobby-grid">
        <CreateForm client={client} tokens={tokens} go={go} />
        <section class="panel games" aria-label="Games">
          <h2>Games</h2>
          {error ? <p class="error">{error}</p> : null}
          {games === undefined ? (
            <p class="muted">Loading…</p>
          ) : games.length === 0 ? (
            <p class="muted">No games yet: create one.</p>
          ) : (
            <table>
              <thead>
                <tr>
                  <th>Game</th>
                  <th>Seats</th>
                  <th />
                </tr>
              </thead>
              <tbody>
                {games.map((game) => (
                  <GameRow game={game} client={client} tokens={tokens} go={go} setError={setError} />
                ))}
              </tbody>
            </table>
          )}
        </section>
      </div>
    </main>
  );
}
