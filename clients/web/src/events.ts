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
  statReasonName,
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
      const action = k.value.action;
      const cost = action?.details?.rageCost ?? 0;
      const paid = cost && action?.kind.case !== "passTurn" ? ` (−${cost} Rage)` : "";
      return { ...base, kind: "action", seat: k.value.seat, text: `${who(k.value.seat, names)}: ${label}${paid}${late}` };
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
      const v = k.value;
      const level = v.level;
      const why = [statReasonName(v.reason), v.cardId ? catalog.cardName(v.cardId) : "", v.area ? `in ${areaName(v.area)}` : ""]
        .filter(Boolean)
        .join(" ");
      const from = v.previousStep ? `step ${v.previousStep} → ${level?.step}` : `step ${level?.step}`;
      const text = level
        ? `${who(v.seat, names)}: ${statName(level.stat)} ${from} (${level.value})${why ? `, ${why}` : ""}`
        : `${who(v.seat, names)}: a stat changed`;
      return { ...base, kind: "stat", seat: v.seat, text };
    }
    case "rageChanged": {
      const v = k.value;
      const other = v.otherSeat === undefined ? "" : `, ${v.delta > 0 ? "from" : "taken by"} ${who(v.otherSeat, names)}`;
      const card = v.cardId ? catalog.cardName(v.cardId) : "a card";
      const sign = v.delta >= 0 ? "+" : "";
      return { ...base, kind: "rage", seat: v.seat, text: `${who(v.seat, names)} ${sign}${v.delta} Rage (${card}${other}) → ${v.rage} left` };
    }
    case "pillageStarted":
      return {
        ...base,
        kind: "pillage",
        seat: k.value.pillager,
        text: `${who(k.value.pillager, names)} pillages ${areaName(k.value.province)}: Call to Battle`,
      };
    case "pillageRewardTaken": {
      const v = k.value;
      const times = v.times > 1 ? `, ${v.times} times` : "";
      return { ...base, kind: "pillage", seat: v.seat, text: `${areaName(v.province)} is pillaged: ${rewardName(v.reward)}${times}` };
    }
    case "draftRoundEnded": {
      const v = k.value;
      const next = v.packsPassed ? "the packs pass to the left" : "the cards left are discarded unseen";
      return { ...base, kind: "phase", text: `Draft round ${v.round} done: ${next}` };
    }
    case "lateCardPlayed":
      return {
        ...base,
        kind: "battle",
        seat: k.value.seat,
        text: `${who(k.value.seat, names)} plays ${k.value.card ? catalog.cardName(k.value.card.cardId) : "a card"} after the reveal`,
      };
    case "figureRetreated": {
      const v = k.value;
      return {
        ...base,
        kind: "battle",
        seat: v.seat,
        text: `${who(v.seat, names)}'s ${unitName(v.unit)} retreats from ${areaName(v.fromArea)} to ${areaName(v.toArea)}`,
      };
    }
    case "figureSaved": {
      const v = k.value;
      const card = v.cardId ? ` (${catalog.cardName(v.cardId)})` : "";
      return { ...base, kind: "battle", seat: v.seat, text: `${who(v.seat, names)} saves its ${unitName(v.unit)} in ${areaName(v.area)}${card}` };
    }
    case "battleCardsDiscarded": {
      const v = k.value;
      const card = v.cardId ? catalog.cardName(v.cardId) : "A card";
      return {
        ...base,
        kind: "battle",
        seat: v.seat,
        text: `${card}: the cards revealed in ${areaName(v.province)} are discarded (+${v.glory} Glory); new cards are chosen`,
      };
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
