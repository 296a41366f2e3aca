// Display names of the API's enums and the clan marks used everywhere on the page. Clans are
// told apart by a letter and a pattern as well as by colour, so the page reads without colour.
import {
  Area,
  CardType,
  Clan,
  GloryReason,
  Phase,
  PillageReward,
  Stat,
  StatReason,
  Step,
  Unit,
  UpgradeSlot,
} from "./gen/yggdrasil/v1/blood_rage_pb.js";
import { GameStatus } from "./gen/yggdrasil/v1/game_pb.js";

export interface ClanLook {
  name: string;
  /** One letter drawn on every figure of the clan. */
  mark: string;
  colour: string;
  /** id of the SVG pattern laid over the clan's colour (see Board). */
  pattern: string;
}

// Seat i plays clan i + 1 (Wolf, Raven, Serpent, Bear, Ram).
export const CLANS: readonly ClanLook[] = [
  { name: "Wolf", mark: "W", colour: "#3a78c2", pattern: "pat-wolf" },
  { name: "Raven", mark: "R", colour: "#8e44ad", pattern: "pat-raven" },
  { name: "Serpent", mark: "S", colour: "#2e8b57", pattern: "pat-serpent" },
  { name: "Bear", mark: "B", colour: "#c0392b", pattern: "pat-bear" },
  { name: "Ram", mark: "M", colour: "#d4a017", pattern: "pat-ram" },
];

export function clanOf(seat: number): ClanLook {
  return CLANS[seat] ?? { name: `Seat ${seat + 1}`, mark: "?", colour: "#777", pattern: "" };
}

export function clanEnumName(clan: Clan): string {
  return clan === Clan.UNSPECIFIED ? "?" : clanOf(clan - 1).name;
}

/** "NORTH_FJORD" -> "North fjord": the generated enum's own name, made readable. */
function words(name: string | undefined): string {
  if (!name) return "?";
  const lower = name.toLowerCase().replace(/_/g, " ");
  return lower.charAt(0).toUpperCase() + lower.slice(1);
}

const AREA_NAMES: Partial<Record<Area, string>> = {
  [Area.YGGDRASIL]: "Yggdrasil",
  [Area.MYRKULOR]: "Myrkulor",
  [Area.ELVAGAR]: "Elvagar",
  [Area.ANGERBODA]: "Angerboda",
  [Area.MUSPELHEIM]: "Muspelheim",
  [Area.HORGR]: "Horgr",
  [Area.UTGARD]: "Utgard",
  [Area.ANDLANG]: "Andlang",
  [Area.GIMLE]: "Gimle",
  [Area.NORTH_FJORD]: "North fjord",
  [Area.EAST_FJORD]: "East fjord",
  [Area.SOUTH_FJORD]: "South fjord",
  [Area.WEST_FJORD]: "West fjord",
};

export function areaName(area: Area): string {
  return AREA_NAMES[area] ?? words(Area[area]);
}

/** A figure's name as people write it: the basic figures in lower case inside a sentence
 *  ("Raven leader"), the monsters by their card's name ("Raven Dwarf Chieftain"). */
export function unitName(unit: Unit): string {
  const lower = words(Unit[unit]).toLowerCase();
  if (unit === Unit.LEADER || unit === Unit.WARRIOR || unit === Unit.SHIP) return lower;
  return lower.replace(/\b[a-z]/g, (c) => c.toUpperCase());
}

const MONSTER_CODES: Partial<Record<Unit, string>> = {
  [Unit.TROLL]: "Tr",
  [Unit.DWARF_CHIEFTAIN]: "Dw",
  [Unit.SEA_SERPENT]: "SS",
  [Unit.VALKYRIE]: "Va",
  [Unit.DARK_ELF]: "DE",
  [Unit.FIRE_GIANT]: "Fi",
  [Unit.FROST_GIANT]: "Fr",
  [Unit.SOLDIER_OF_HEL]: "He",
  [Unit.VOLUR_WITCH]: "Vo",
};

/** Two letters naming a monster on the board (its full name is in the figure's tooltip). */
export function monsterCode(unit: Unit): string {
  return MONSTER_CODES[unit] ?? "?";
}

export function statName(stat: Stat): string {
  return words(Stat[stat]);
}

export function phaseName(phase: Phase): string {
  return phase === Phase.DRAFT
    ? "Gods' Gifts (draft)"
    : phase === Phase.RAGNAROK
      ? "Ragnarök"
      : words(Phase[phase]);
}

export const STEP_NAMES: Partial<Record<Step, string>> = {
  [Step.DRAFT_PICK]: "draft pick",
  [Step.ACTION]: "action",
  [Step.MARCH]: "march",
  [Step.OFFER]: "offer",
  [Step.CALL_TO_BATTLE]: "call to battle",
  [Step.BATTLE_CARDS]: "battle cards",
  [Step.LATE_BATTLE_CARDS]: "late battle cards",
  [Step.BATTLE_CHOICE]: "battle choice",
  [Step.DISCARD]: "keep a card",
  [Step.STAT_CHOICE]: "raise a stat",
};

export function stepName(step: Step): string {
  return STEP_NAMES[step] ?? "";
}

export function statusName(status: GameStatus): string {
  return status === GameStatus.IN_PROGRESS ? "in progress" : words(GameStatus[status]).toLowerCase();
}

export function rewardName(reward: PillageReward): string {
  switch (reward) {
    case PillageReward.RAGE:
      return "+1 Rage";
    case PillageReward.AXES:
      return "+1 Axes";
    case PillageReward.HORNS:
      return "+1 Horns";
    case PillageReward.GLORY5:
      return "5 Glory";
    case PillageReward.YGGDRASIL_ALL:
      return "+1 all";
    default:
      return "";
  }
}

export function statReasonName(reason: StatReason): string {
  switch (reason) {
    case StatReason.PILLAGE:
      return "pillage reward";
    case StatReason.QUEST:
      return "quest fulfilled";
    case StatReason.CARD:
      return "card";
    default:
      return "";
  }
}

export function gloryReasonName(reason: GloryReason): string {
  switch (reason) {
    case GloryReason.BATTLE:
      return "battle won";
    case GloryReason.PILLAGE:
      return "pillage";
    case GloryReason.QUEST:
      return "quest";
    case GloryReason.RAGNAROK:
      return "Ragnarök";
    case GloryReason.CARD:
      return "card";
    case GloryReason.END_GAME:
      return "end-game bonus";
    default:
      return "";
  }
}

export function cardTypeName(type: CardType): string {
  return words(CardType[type]).toLowerCase();
}

export function slotName(slot: UpgradeSlot): string {
  return words(UpgradeSlot[slot]).toLowerCase();
}

/** A legal action's or event's label without the "[#12]" card-instance references. */
export function cleanLabel(label: string): string {
  return label.replace(/\s*\[#\d+\]/g, "").replace(/_/g, " ").trim();
}
