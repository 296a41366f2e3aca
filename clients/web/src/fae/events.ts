// One line of text per Fire & Axe event, saying what happened and why (the event carries its
// own reason: a storm's excess, a die against the port's value, why a turn ended). A drawn
// Rune is named only in the drawer's copy; the others' copies arrive without it.
import {
  FireAndAxeEvent_DialCause,
  FireAndAxeEvent_ItemLostCause,
  FireAndAxeEvent_SagaDiscardWhy,
  FireAndAxeEvent_ShipLostCause,
  FireAndAxeEvent_TurnEndHow,
  FireAndAxeEvent_VpReason,
  FireAndAxeEndReason,
  type FireAndAxeEvent_RuneEffect,
} from "../gen/yggdrasil/v1/fire_and_axe_pb.js";
import type { Event } from "../gen/yggdrasil/v1/game_pb.js";
import { GameStatus } from "../gen/yggdrasil/v1/game_pb.js";
import type { FaePack } from "./catalog.js";
import { AGES, GOODS, HOMELANDS, ITEMS, ZONES, seatOf } from "./names.js";

export interface FaeEventLine {
  sequence: bigint;
  text: string;
  seat?: number;
  kind: string;
}

function who(seat: number, names: readonly string[]): string {
  const name = names[seat];
  const colour = seatOf(seat).name;
  return name && name !== colour ? `${colour} (${name})` : colour;
}

function goodsList(counts: readonly number[]): string {
  const parts = counts.slice(0, 3).flatMap((n, i) => (n ? [`${n} ${GOODS[i + 1]}`] : []));
  return parts.join(", ") || "nothing";
}

const TURN_END: Record<number, string> = {
  [FireAndAxeEvent_TurnEndHow.DECLARED]: "ends the turn",
  [FireAndAxeEvent_TurnEndHow.LAST_CREW]: "lost the last crewmember: the turn is over",
  [FireAndAxeEvent_TurnEndHow.VOLUNTARY]: "went back to the Wintering Zone: the turn is over",
};
const SHIP_LOST: Record<number, string> = {
  [FireAndAxeEvent_ShipLostCause.WEATHER]: "to the weather",
  [FireAndAxeEvent_ShipLostCause.RAID]: "in a Raid",
  [FireAndAxeEvent_ShipLostCause.SETTLE]: "in a Settle",
  [FireAndAxeEvent_ShipLostCause.SETTLED]: "to a Settlement",
};
const ITEM_LOST: Record<number, string> = {
  [FireAndAxeEvent_ItemLostCause.WEATHER]: "to the weather (Losses chart)",
  [FireAndAxeEvent_ItemLostCause.RAID]: "on a failed Raid die",
  [FireAndAxeEvent_ItemLostCause.SETTLE]: "on a failed Settle die",
};
const DIAL: Record<number, string> = {
  [FireAndAxeEvent_DialCause.RUNE_PLAYED]: "with a Rune played",
  [FireAndAxeEvent_DialCause.RUNE_DISCARDED]: "with a Rune discarded",
  [FireAndAxeEvent_DialCause.RUNE_EFFECT]: "by a Rune's effect",
};
const VP: Record<number, string> = {
  [FireAndAxeEvent_VpReason.START_BONUS]: "starting bonus",
  [FireAndAxeEvent_VpReason.TRADE]: "Trade",
  [FireAndAxeEvent_VpReason.DEMAND]: "Goods in Demand",
  [FireAndAxeEvent_VpReason.TREASURE]: "treasure",
  [FireAndAxeEvent_VpReason.SAGA]: "Saga bonus",
  [FireAndAxeEvent_VpReason.RUNE]: "a Rune",
  [FireAndAxeEvent_VpReason.BLOODIEST_AXE]: "the Bloodiest Axe",
  [FireAndAxeEvent_VpReason.SETTLEMENT]: "a Settlement",
  [FireAndAxeEvent_VpReason.SAGA_SET]: "Sagas of a Homeland",
};
export const END_REASONS: Record<number, string> = {
  [FireAndAxeEndReason.FINAL_ROUNDS]: "the Final Rounds are over",
  [FireAndAxeEndReason.SAGAS_DONE]: "the Saga spaces are empty",
  [FireAndAxeEndReason.ALL_OUT]: "every player built all their Settlements",
};

function runeEffect(e: FireAndAxeEvent_RuneEffect, pack: FaePack): string {
  const target = e.targetSeat !== undefined ? seatOf(e.targetSeat).name : "";
  const good = GOODS[e.good] ?? "";
  switch (e.effect) {
    case "days_back":
      return `Days back: Preparation ${e.preparation}, Sailing ${e.sailing}`;
    case "recover_crew":
      return `${e.amount} crew back aboard`;
    case "gain_goods":
      return `${e.amount} ${good} aboard`;
    case "opponent_loses_crew":
      return `${target} sends ${e.amount} crew home`;
    case "opponent_loses_goods":
      return `${target} loses ${e.amount} ${good}`;
    case "attack_bonus":
      return `+${e.amount} to the attack's dice`;
    case "extra_task":
      return `one more Task at ${e.port !== undefined ? pack.place(e.port) : "this port"}`;
    case "draw_runes":
      return `draws ${e.amount} Rune(s)`;
    case "recover_losses":
      return "the items on the Losses chart come back aboard";
    case "calm_weather":
      return "the next Sail has no weather check";
    default:
      return e.effect;
  }
}

export function describeFaeEvent(event: Event, pack: FaePack, names: readonly string[]): FaeEventLine {
  const base = { sequence: event.sequence };
  const p = event.payload;
  switch (p.case) {
    case "seatClaimed":
      return { ...base, kind: "seat", seat: p.value.seat, text: `${who(p.value.seat, names)} took their seat` };
    case "statusChanged":
      return { ...base, kind: "status", text: `The game is ${GameStatus[p.value.status].toLowerCase().replace("_", " ")}` };
    case "timedOut":
      return { ...base, kind: "timeout", seat: p.value.seat, text: `${who(p.value.seat, names)} ran out of time` };
    case "gameEnded": {
      const winners = p.value.result?.winners.map((s) => who(s, names)).join(" and ") ?? "";
      return { ...base, kind: "end", text: `Game over: ${winners || "no winner"} won` };
    }
    case "fireAndAxe":
      break;
    default:
      return { ...base, kind: "other", text: "(an event this page does not know)" };
  }
  const k = p.value.kind;
  const line = (kind: string, text: string, seat?: number): FaeEventLine => ({ ...base, kind, text, seat });
  switch (k.case) {
    case "actionApplied": {
      const late = k.value.byTimeout ? " (time ran out: the default)" : "";
      return line("action", `${who(k.value.seat, names)}: ${k.value.label}${late}`, k.value.seat);
    }
    case "turnStarted":
      return line("turn", `${who(k.value.seat, names)}'s turn begins (turn ${k.value.turn})`, k.value.seat);
    case "finalMarkerPlaced":
      return line(
        "final",
        `${who(k.value.seat, names)} places Final Round marker ${k.value.placed}/3${k.value.lastTurn ? ": the game ends with this turn" : ""}`,
        k.value.seat,
      );
    case "playerOut":
      return line("out", `${who(k.value.seat, names)} has settled every crewmember and is out`, k.value.seat);
    case "turnSkipped":
      return line("turn", `${who(k.value.seat, names)}'s turn is skipped (out)`, k.value.seat);
    case "turnEnded": {
      const cleared = k.value.chartDiscarded.reduce((a, b) => a + b, 0);
      const extra = cleared ? `; ${cleared} item(s) cleared from the Losses chart` : "";
      return line("turn", `${who(k.value.seat, names)} ${TURN_END[k.value.how] ?? "ends the turn"}${extra}`, k.value.seat);
    }
    case "loaded":
      return line("load", `${who(k.value.seat, names)} loads ${ITEMS[k.value.item] ?? "?"} (Day ${k.value.days})`, k.value.seat);
    case "leftWintering":
      return line("sail", `${who(k.value.seat, names)} leaves the Wintering Zone for ${pack.place(k.value.homeland)}`, k.value.seat);
    case "returned":
      return line(
        "sail",
        `${who(k.value.seat, names)} returns to the Wintering Zone from ${pack.place(k.value.location)}, discarding ${goodsList(k.value.goods)} and sending ${k.value.crew} crew home`,
        k.value.seat,
      );
    case "shipLost":
      return line(
        "lost",
        `${who(k.value.seat, names)} loses the last crewmember ${SHIP_LOST[k.value.cause] ?? ""} at ${pack.place(k.value.location)}: back to the Wintering Zone, ${goodsList(k.value.goods)} discarded`,
        k.value.seat,
      );
    case "sailed":
      return line(
        "sail",
        `${who(k.value.seat, names)} sails ${pack.place(k.value.fromLocation)} → ${pack.place(k.value.toLocation)} (Day ${k.value.days})`,
        k.value.seat,
      );
    case "weatherChecked": {
      const zone = ZONES[k.value.zone] ?? "?";
      if (k.value.excess <= 0)
        return line("weather", `${who(k.value.seat, names)}: fair weather in the ${zone} (${k.value.sailing} ≤ ${k.value.fairWeatherDays})`, k.value.seat);
      return line(
        "weather",
        `${who(k.value.seat, names)}: storm in the ${zone}, Sailing ${k.value.sailing} > ${k.value.fairWeatherDays} Fair Weather Days: ${k.value.skulls.length} item(s) lost`,
        k.value.seat,
      );
    }
    case "weatherSkipped":
      return line("weather", `${who(k.value.seat, names)}: calm seas, no weather check`, k.value.seat);
    case "itemLost":
      return line("lost", `${who(k.value.seat, names)} loses ${ITEMS[k.value.item] ?? "?"} ${ITEM_LOST[k.value.cause] ?? ""}`.trim(), k.value.seat);
    case "dialTurned":
      return line(
        "weather",
        `${who(k.value.seat, names)} turns the Wind Dial ${k.value.quarters > 0 ? "clockwise" : "counter-clockwise"} ${DIAL[k.value.cause] ?? ""}: best ${ZONES[k.value.blue] ?? "?"}, worst ${ZONES[k.value.red] ?? "?"}`,
        k.value.seat,
      );
    case "traded":
      return line(
        "task",
        `${who(k.value.seat, names)} trades ${GOODS[k.value.good] ?? "?"}${k.value.inDemand ? " (in demand)" : ""} at ${pack.place(k.value.port)}`,
        k.value.seat,
      );
    case "raidRolled":
      return line(
        "task",
        `${who(k.value.seat, names)} raids ${pack.place(k.value.port)}: rolls ${k.value.roll}${k.value.bonus ? `+${k.value.bonus}` : ""} against ${k.value.target} (roll ${k.value.attempt}): ${k.value.success ? "success" : "fails"}`,
        k.value.seat,
      );
    case "townTaken":
      return line("task", `${who(k.value.seat, names)} takes the town of ${pack.place(k.value.port)}: treasure ${k.value.treasure}`, k.value.seat);
    case "raidStopped":
      return line("task", `${who(k.value.seat, names)} stops raiding ${pack.place(k.value.port)}`, k.value.seat);
    case "settleRolled":
      return line(
        "task",
        `${who(k.value.seat, names)} settles ${pack.place(k.value.port)}: rolls ${k.value.dice.join(" ")}${k.value.bonus ? ` (+${k.value.bonus} each)` : ""} against ${k.value.target}, ${k.value.failures} failed: ${k.value.success ? "success" : "fails"}`,
        k.value.seat,
      );
    case "settled":
      return line("task", `${who(k.value.seat, names)} builds a Settlement at ${pack.place(k.value.port)} (${k.value.settlements} in all)`, k.value.seat);
    case "settleDeclined":
      return line("task", `${who(k.value.seat, names)} keeps the last crewmember: no Settlement at ${pack.place(k.value.port)}`, k.value.seat);
    case "runeDrawn":
      return line(
        "rune",
        `${who(k.value.seat, names)} draws a Rune${k.value.rune !== undefined ? `: ${pack.runeName(k.value.rune)}` : ""} (${k.value.handCount} in hand)`,
        k.value.seat,
      );
    case "runesReshuffled":
      return line("rune", `The Rune discards are shuffled into a new deck of ${k.value.deck}`);
    case "runePlayed":
      return line("rune", `${who(k.value.seat, names)} plays ${pack.runeName(k.value.rune)}`, k.value.seat);
    case "runeDiscarded":
      return line("rune", `${who(k.value.seat, names)} discards ${pack.runeName(k.value.rune)}`, k.value.seat);
    case "runeEffect":
      return line("rune", `${who(k.value.seat, names)}'s Rune: ${runeEffect(k.value, pack)}`, k.value.seat);
    case "demandChanged":
      return line(
        "rune",
        `${who(k.value.seat, names)} changes the Goods in Demand: ${GOODS[k.value.fromGood] ?? "?"} → ${GOODS[k.value.toGood] ?? "?"}`,
        k.value.seat,
      );
    case "vpChanged": {
      const v = k.value;
      let detail = v.port !== undefined ? ` at ${pack.place(v.port)}` : "";
      if (v.saga !== undefined) detail += ` (${pack.sagaName(v.saga)})`;
      if (v.reason === FireAndAxeEvent_VpReason.SAGA_SET) detail = ` (${v.sagas} of ${HOMELANDS[v.homeland] ?? "?"})`;
      if (v.reason === FireAndAxeEvent_VpReason.BLOODIEST_AXE) detail = ` (${v.towns} towns)`;
      const sign = v.delta >= 0 ? "+" : "";
      return line("vp", `${who(v.seat, names)} ${sign}${v.delta} VP: ${VP[v.reason] ?? ""}${detail} (now ${v.vp})`, v.seat);
    }
    case "sagaRevealed":
      return line("saga", `Saga revealed: ${pack.sagaName(k.value.saga)}`);
    case "sagaDiscarded": {
      const why =
        k.value.why === FireAndAxeEvent_SagaDiscardWhy.FULFILLED
          ? "already fulfilled"
          : k.value.why === FireAndAxeEvent_SagaDiscardWhy.IMPOSSIBLE
            ? "no goods can complete it any more"
            : "";
      return line("saga", `Saga discarded: ${pack.sagaName(k.value.saga)} (${why})`);
    }
    case "sagaCompleted":
      return line(
        "saga",
        `${who(k.value.seat, names)} completes the Saga ${pack.sagaName(k.value.saga)}${k.value.bonusVp ? `, +${k.value.bonusVp} VP` : ""}`,
        k.value.seat,
      );
    case "ageStarted":
      return line("age", `Age ${AGES[k.value.age] ?? k.value.age} begins`);
    case "finalMarkersTaken":
      return line("final", `${who(k.value.seat, names)} revealed the last Saga and takes the Final Round markers`, k.value.seat);
    case "gameOver":
      return line("end", `Game over: ${END_REASONS[k.value.reason] ?? ""} (${k.value.vp.map((v, s) => `${seatOf(s).name} ${v}`).join(", ")} VP)`);
    default:
      return line("other", "(an event this page does not know)");
  }
}
