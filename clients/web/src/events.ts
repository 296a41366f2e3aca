// One line of text per event, with the reason the API gives (Glory reasons, the card
// responsible, why figures died). Only what the event itself carries is shown: other seats'
// secret choices arrive blanked and stay blank.
import type { DestroyedFigure } from "./gen/yggdrasil/v1/blood_rage_pb.js";
import type { Event } from "./gen/yggdrasil/v1/game_pb.js";
import type { Catalog } from "./catalog.js";
import {
  areaName,
  cleanLabel,
  clanOf,
  gloryReasonName,
  phaseName,
  rewardName,
  statName,
  statusName,
  unitName,
} from "./names.js";

export interface EventLine {
  sequence: bigint;
  text: string;
  /** The seat the line is mostly about, for its colour mark. */
  seat?: number;
  kind: string;
}

function who(seat: number, names: readonly string[]): string {
  const name = names[seat];
  const clan = clanOf(seat).name;
  return name && name !== clan ? `${clan} (${name})` : clan;
}

function figures(list: readonly DestroyedFigure[]): string {
  return list.map((f) => `${clanOf(f.seat).name} ${unitName(f.unit)} in ${areaName(f.area)}`).join(", ");
}

const CAUSES: Record<string, string> = {
  battle: "lost the battle",
  effect: "a card or monster",
  own_choice: "their own choice",
  ragnarok: "Ragnarök",
};

export function describeEvent(event: Event, catalog: Catalog, names: readonly string[]): EventLine {
  const base = { sequence: event.sequence };
  const p = event.payload;
  switch (p.case) {
    case "seatClaimed":
      return { ...base, kind: "seat", seat: p.value.seat, text: `${who(p.value.seat, names)} took their seat` };
    case "statusChanged":
      return { ...base, kind: "status", text: `The game is ${statusName(p.value.status)}` };
    case "timedOut":
      return { ...base, kind: "timeout", seat: p.value.seat, text: `${who(p.value.seat, names)} ran out of time` };
    case "gameEnded": {
      const winners = p.value.result?.winners.map((s) => who(s, names)).join(" and ") ?? "";
      return { ...base, kind: "end", text: `Game over: ${winners || "no winner"} won` };
    }
    case "bloodRage":
      break;
    default:
      return { ...base, kind: "other", text: "(an event this page does not know)" };
  }
  const k = p.value.kind;
  switch (k.case) {
    case "phaseStarted":
      return { ...base, kind: "phase", text: `Age ${k.value.age}: ${phaseName(k.value.phase)} begins` };
    case "actionApplied": {
      const label = cleanLabel(k.value.label) || "decided";
      const late = k.value.byTimeout ? " (time ran out: default applied)" : "";
      return { ...base, kind: "action", seat: k.value.seat, text: `${who(k.value.seat, names)}: ${label}${late}` };
    }
    case "battleRevealed": {
      const cards = k.value.cards
        .map((c) => `${clanOf(c.seat).name} ${c.card ? catalog.cardName(c.card.cardId) : "?"}`)
        .join(", ");
      return { ...base, kind: "battle", text: `Battle in ${areaName(k.value.province)}: cards revealed — ${cards || "none"}` };
    }
    case "battleResolved": {
      const totals = k.value.totals.map((t) => `${clanOf(t.seat).name} ${t.strength}`).join(", ");
      const winner = k.value.winner === undefined ? "nobody wins (tie)" : `${who(k.value.winner, names)} wins`;
      return {
        ...base,
        kind: "battle",
        seat: k.value.winner,
        text: `Battle in ${areaName(k.value.province)}: ${winner} (${totals})`,
      };
    }
    case "pillageResult": {
      const v = k.value;
      const outcome = v.success ? `pillaged it: ${rewardName(v.reward)}` : "failed to pillage it";
      return {
        ...base,
        kind: "pillage",
        seat: v.pillager,
        text: `${who(v.pillager, names)} ${outcome} (${areaName(v.province)}${v.battle ? "" : ", undefended"})`,
      };
    }
    case "questResults": {
      const quests = k.value.quests
        .map(
          (q) =>
            `${clanOf(q.seat).name}: ${q.card ? catalog.cardName(q.card.cardId) : "?"} ${q.fulfilled ? `fulfilled (+${q.glory})` : "failed"}`,
        )
        .join("; ");
      return { ...base, kind: "quest", text: `Quests: ${quests || "none committed"}` };
    }
    case "ragnarok": {
      const dead = k.value.destroyed.length ? ` — ${figures(k.value.destroyed)} to Valhalla` : "";
      return { ...base, kind: "ragnarok", text: `Ragnarök destroys ${areaName(k.value.province)} (end of Age ${k.value.age})${dead}` };
    }
    case "gloryChanged": {
      const v = k.value;
      const reason = gloryReasonName(v.reason);
      const card = v.cardId ? catalog.cardName(v.cardId) : "";
      const place = v.area ? `in ${areaName(v.area)}` : "";
      const stat = v.stat ? statName(v.stat) : "";
      const other =
        v.otherSeat === undefined ? "" : v.delta < 0 ? `taken by ${who(v.otherSeat, names)}` : `from ${who(v.otherSeat, names)}`;
      const why = [[reason, card].filter(Boolean).join(": "), stat, other, place].filter(Boolean).join(", ");
      const sign = v.delta >= 0 ? "+" : "";
      return {
        ...base,
        kind: "glory",
        seat: v.seat,
        text: `${who(v.seat, names)} ${sign}${v.delta} Glory${why ? ` (${why})` : ""} → ${v.glory}`,
      };
    }
    case "statChanged": {
      const level = k.value.level;
      const text = level
        ? `${who(k.value.seat, names)}: ${statName(level.stat)} to step ${level.step} (${level.value})`
        : `${who(k.value.seat, names)}: a stat changed`;
      return { ...base, kind: "stat", seat: k.value.seat, text };
    }
    case "figuresDestroyed": {
      const v = k.value;
      const reasons = [CAUSES[v.cause] ?? v.cause, v.cardId ? catalog.cardName(v.cardId) : ""].filter(Boolean);
      return {
        ...base,
        kind: "destroyed",
        text: `To Valhalla: ${figures(v.destroyed)}${reasons.length ? ` (${reasons.join(": ")})` : ""}`,
      };
    }
    case "valhallaReleased": {
      const back = k.value.released
        .map((n, seat) => (n ? `${clanOf(seat).name} ${n}` : ""))
        .filter(Boolean)
        .join(", ");
      return { ...base, kind: "valhalla", text: `Valhalla released its figures${back ? `: ${back}` : ""}` };
    }
    case "endGameScoring": {
      const lines = k.value.bonuses
        .map((b) => `${clanOf(b.seat).name} +${b.statBonus} stats${b.cardBonus ? ` +${b.cardBonus} cards` : ""} = ${b.glory}`)
        .join("; ");
      return { ...base, kind: "end", text: `End-game bonuses: ${lines}` };
    }
    default:
      return { ...base, kind: "other", text: "(an event this page does not know)" };
  }
}
