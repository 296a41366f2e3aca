// The last move, for the board to highlight: the places the latest decision's events name
// (where a figure went or came from, the pillaged province, where figures died, the province
// Ragnarök destroyed), and who made it.
import { Area } from "./gen/yggdrasil/v1/blood_rage_pb.js";
import type { Event } from "./gen/yggdrasil/v1/game_pb.js";

export interface LastMove {
  areas: Set<Area>;
  /** The seat whose decision it was, if a decision. */
  seat?: number;
  /** The state version the move led to. */
  version: bigint;
}

/** The events of the newest group (one decision's, or one claim's) in ``log``. */
export function lastGroup(log: readonly Event[]): Event[] {
  if (!log.length) return [];
  const version = log[log.length - 1].stateVersion;
  let start = log.length - 1;
  while (start > 0 && log[start - 1].stateVersion === version) start--;
  return log.slice(start);
}

/** What the board highlights of a group of events (undefined if it names no place). */
export function lastMove(group: readonly Event[]): LastMove | undefined {
  const areas = new Set<Area>();
  let seat: number | undefined;
  for (const event of group) {
    if (event.payload.case !== "bloodRage") continue;
    const k = event.payload.value.kind;
    switch (k.case) {
      case "actionApplied": {
        seat = k.value.seat;
        const action = k.value.action;
        const a = action?.kind;
        const details = action?.details;
        if (details?.area) areas.add(details.area);
        switch (a?.case) {
          case "invade":
          case "freeInvade":
          case "invadeFromValhalla":
          case "moveLeader":
          case "saveFigure":
          case "keepFigure":
          case "sacrifice":
            areas.add(a.value.area);
            break;
          case "march":
            areas.add(a.value.fromArea);
            areas.add(a.value.toArea);
            break;
          case "callToBattle":
            areas.add(a.value.fromArea);
            break;
          case "pillage":
          case "challenge":
            areas.add(a.value.province);
            break;
        }
        break;
      }
      case "pillageStarted":
      case "battleRevealed":
      case "pillageResult":
      case "battleResolved":
      case "ragnarok":
        areas.add(k.value.province);
        break;
      case "figuresDestroyed":
        for (const d of k.value.destroyed) areas.add(d.area);
        break;
      case "figureRetreated":
        areas.add(k.value.fromArea);
        areas.add(k.value.toArea);
        break;
    }
  }
  areas.delete(Area.UNSPECIFIED);
  if (!areas.size) return undefined;
  return { areas, seat, version: group[group.length - 1].stateVersion };
}
