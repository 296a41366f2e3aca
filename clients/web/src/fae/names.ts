// Fire & Axe's words and seat looks. Seats are colours (Red, Blue, Yellow, Green, Purple: the
// engine's labels), told apart by a letter as well, so the page reads without colour.
import {
  FireAndAxeGood,
  FireAndAxeHomeland,
  FireAndAxeItem,
  FireAndAxeLocationKind,
  FireAndAxeSagaType,
  FireAndAxeStep,
  FireAndAxeZone,
} from "../gen/yggdrasil/v1/fire_and_axe_pb.js";

export interface SeatLook {
  name: string;
  mark: string;
  colour: string;
}

export const SEATS: readonly SeatLook[] = [
  { name: "Red", mark: "R", colour: "#c0392b" },
  { name: "Blue", mark: "B", colour: "#2f6fb5" },
  { name: "Yellow", mark: "Y", colour: "#d4a017" },
  { name: "Green", mark: "G", colour: "#2e8b57" },
  { name: "Purple", mark: "P", colour: "#8e44ad" },
];

export function seatOf(seat: number): SeatLook {
  return SEATS[seat] ?? { name: `Seat ${seat + 1}`, mark: "?", colour: "#777" };
}

export const GOODS: Record<number, string> = {
  [FireAndAxeGood.TUSK]: "tusk",
  [FireAndAxeGood.FISH]: "fish",
  [FireAndAxeGood.FUR]: "fur",
};

export const GOOD_COLOURS: Record<number, string> = {
  [FireAndAxeGood.TUSK]: "#f4ecd8",
  [FireAndAxeGood.FISH]: "#9fc3d9",
  [FireAndAxeGood.FUR]: "#8b5a2b",
};

export const ITEMS: Record<number, string> = {
  [FireAndAxeItem.TUSK]: "tusk",
  [FireAndAxeItem.FISH]: "fish",
  [FireAndAxeItem.FUR]: "fur",
  [FireAndAxeItem.CREW]: "crew",
};

export const ZONES: Record<number, string> = {
  [FireAndAxeZone.NORTH]: "North",
  [FireAndAxeZone.EAST]: "East",
  [FireAndAxeZone.SOUTH]: "South",
  [FireAndAxeZone.WEST]: "West",
};

export const HOMELANDS: Record<number, string> = {
  [FireAndAxeHomeland.DENMARK]: "Denmark",
  [FireAndAxeHomeland.NORWAY]: "Norway",
  [FireAndAxeHomeland.SWEDEN]: "Sweden",
};

export const HOMELAND_COLOURS: Record<number, string> = {
  [FireAndAxeHomeland.DENMARK]: "#2e8b57",
  [FireAndAxeHomeland.NORWAY]: "#2f6fb5",
  [FireAndAxeHomeland.SWEDEN]: "#c0392b",
};

export const SAGA_TYPES: Record<number, string> = {
  [FireAndAxeSagaType.RAID]: "Raid",
  [FireAndAxeSagaType.TRADE]: "Trade",
  [FireAndAxeSagaType.SETTLE]: "Settle",
};

export const AGES = ["", "I", "II", "III"];

export const STEPS: Record<number, string> = {
  [FireAndAxeStep.MAIN]: "Actions (1 Day each), Tasks, Runes — or end the turn",
  [FireAndAxeStep.LOSSES]: "The weather strikes: choose the items to lose",
  [FireAndAxeStep.RAID_AGAIN]: "The Raid roll failed: roll again or stop",
  [FireAndAxeStep.SETTLE_CONVERT]: "The Settle succeeded: settle your last crewmember?",
  [FireAndAxeStep.WINDOW]: "A Rune window: play or discard a Rune, or pass",
  [FireAndAxeStep.GAME_OVER]: "The game is over",
};

export const KINDS = FireAndAxeLocationKind;

export const DEMO_NOTE = "Demo pack: invented board and cards — NOT the published Fire & Axe";
