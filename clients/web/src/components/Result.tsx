// The result screen: ranks, final Glory, who won, and the end-game bonuses.
import type { GameResult } from "../gen/yggdrasil/v1/game_pb.js";
import { clanOf, statName } from "../names.js";
import { ClanMark } from "./Panels.js";

export function ResultScreen(props: { result: GameResult; viewer?: number; gameId?: string }) {
  const { result, viewer, gameId } = props;
  const bonuses = result.game.case === "bloodRage" ? result.game.value.bonuses : [];
  const seats = [...result.seats].sort((a, b) => a.rank - b.rank || a.seat - b.seat);
  const mine = viewer === undefined ? undefined : result.seats.find((s) => s.seat === viewer);
  return (
    <section class="panel result" aria-label="Result">
      <h2>Game over</h2>
      {mine ? <p class="verdict">{mine.winner ? "You won!" : `You finished #${mine.rank}.`}</p> : null}
      <table>
        <thead>
          <tr>
            <th>Rank</th>
            <th>Clan</th>
            <th>Glory</th>
            <th>End-game bonuses</th>
            <th class="wide">Final stats</th>
          </tr>
        </thead>
        <tbody>
          {seats.map((s) => {
            const b = bonuses.find((x) => x.seat === s.seat);
            return (
              <tr class={s.winner ? "winner" : ""} data-seat={s.seat}>
                <td>{s.rank}</td>
                <td>
                  <ClanMark seat={s.seat} /> {clanOf(s.seat).name} <span class="player-name">{s.name}</span>
                  {s.winner ? <span class="badge">winner</span> : null}
                </td>
                <td>
                  <b>{String(s.score)}</b>
                </td>
                <td>{b ? `stats +${b.statBonus}, cards +${b.cardBonus}` : ""}</td>
                <td class="wide">{b ? b.finalStats.map((l) => `${statName(l.stat)} ${l.value}`).join(", ") : ""}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
      <p class="result-links">
        {gameId ? <a href={`#/replay/${gameId}`}>Watch the replay</a> : null} <a href="#/">Back to the lobby</a>
      </p>
    </section>
  );
}
