// The lobby: the games on the server (refreshed every few seconds), a form to create one,
// buttons to join a free seat, resume a seat held in this browser, or watch.
import { useEffect, useState } from "preact/hooks";
import { ConnectError } from "@connectrpc/connect";
import type { GameClient } from "../api.js";
import { DraftMode } from "../gen/yggdrasil/v1/blood_rage_pb.js";
import type { GameSummary } from "../gen/yggdrasil/v1/game_pb.js";
import { GameStatus } from "../gen/yggdrasil/v1/game_pb.js";
import { clanOf, statusName } from "../names.js";
import { joinSeat } from "../session.js";
import type { SeatTokens } from "../tokens.js";
import { ClanMark } from "./Panels.js";

/** Seats created with this name are played by the bots of `make web` (scripts/web.py). */
export const BOT_NAME = "bot";

function isBotSeat(name: string): boolean {
  return name.toLowerCase().startsWith(BOT_NAME);
}

export function CreateForm(props: { client: GameClient; tokens: SeatTokens; go: (hash: string) => void }) {
  const { client, tokens, go } = props;
  const [players, setPlayers] = useState(2);
  const [name, setName] = useState(() => window.localStorage.getItem("yggdrasil.name") ?? "");
  const [others, setOthers] = useState<"bots" | "people">("bots");
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
          game: {
            case: "bloodRage",
            value: { draftMode: noDraft ? DraftMode.NO_DRAFT : DraftMode.NORMAL },
          },
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
      <label>
        <input type="checkbox" name="nodraft" checked={noDraft} onChange={(e) => setNoDraft(e.currentTarget.checked)} /> no draft
        (first-game variant)
      </label>
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
      </td>
      <td>
        <div class="seats">
          {game.seats.map((s) => (
            <span class="seat">
              <ClanMark seat={s.seat} /> {s.name || clanOf(s.seat).name}
              {s.claimed ? "" : isBotSeat(s.name) ? " (bot, free)" : " (free)"}
            </span>
          ))}
        </div>
      </td>
      <td>
        <div class="row-actions">
          {mine ? (
            <button onClick={() => go(`#/game/${game.gameId}`)}>
              {finished ? "See the result" : `Resume as ${clanOf(mine.seat).name}`}
            </button>
          ) : open ? (
            game.seats
              .filter((s) => !s.claimed && !isBotSeat(s.name))
              .map((s) => <button onClick={() => void join(s.seat)}>Join as {clanOf(s.seat).name}</button>)
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
      <h1>Yggdrasil · Blood Rage</h1>
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
