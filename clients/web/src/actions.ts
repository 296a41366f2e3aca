// What the legal actions point at: the board area an action happens in (clickable on the
// board) and the card it plays (clickable in the hand), and the prompt's words.
import type { BloodRageAction, PromptView } from "./gen/yggdrasil/v1/blood_rage_pb.js";
import { Area, Step } from "./gen/yggdrasil/v1/blood_rage_pb.js";
import type { LegalAction, View } from "./gen/yggdrasil/v1/game_pb.js";
import { areaName, statName, unitName } from "./names.js";
import type { Catalog } from "./catalog.js";

function brAction(action: LegalAction): BloodRageAction | undefined {
  const game = action.action?.game;
  return game?.case === "bloodRage" ? game.value : undefined;
}

/** The board area an action names (invade, march destination, pillage, Call to Battle
 *  origin, and the card-driven ones), or undefined. */
export function actionArea(action: LegalAction): Area | undefined {
  const kind = brAction(action)?.kind;
  let area: Area | undefined;
  switch (kind?.case) {
    case "invade":
    case "freeInvade":
    case "invadeFromValhalla":
    case "saveFigure":
    case "keepFigure":
    case "sacrifice":
    case "moveLeader":
      area = kind.value.area;
      break;
    case "march":
      area = kind.value.toArea;
      break;
    case "pillage":
    case "challenge":
      area = kind.value.province;
      break;
    case "callToBattle":
      area = kind.value.fromArea;
      break;
    default:
      area = undefined;
  }
  return area === Area.UNSPECIFIED ? undefined : area;
}

/** The card instance an action plays, or undefined. */
export function actionCard(action: LegalAction): number | undefined {
  const kind = brAction(action)?.kind;
  switch (kind?.case) {
    case "draftPick":
    case "quest":
    case "battleCard":
    case "keepCard":
    case "lateCard":
    case "keepRevealed":
      return kind.value.card;
    case "upgrade":
      return kind.value.card;
    default:
      return undefined;
  }
}

export function actionKind(action: LegalAction): string {
  return brAction(action)?.kind.case ?? "";
}

function group<K>(actions: readonly LegalAction[], key: (a: LegalAction) => K | undefined): Map<K, number[]> {
  const found = new Map<K, number[]>();
  actions.forEach((action, index) => {
    const k = key(action);
    if (k === undefined) return;
    const list = found.get(k) ?? [];
    list.push(index);
    found.set(k, list);
  });
  return found;
}

export const actionsByArea = (actions: readonly LegalAction[]) => group(actions, actionArea);
export const actionsByCard = (actions: readonly LegalAction[]) => group(actions, actionCard);

const BY_PROMPT_KIND: Record<string, (p: PromptView, c: Catalog) => string> = {
  protect: (p) =>
    `Frigga's Protection: pay 1 Rage to save one of these figures? At stake: ${p.doomed
      .map((d) => `${unitName(d.unit)} in ${areaName(d.area)}`)
      .join(", ")}.`,
  witch_retreat: () => "Volur Witch: retreat to Yggdrasil instead of being destroyed?",
  tide_keep: () => "Odin's Tide: choose the one figure of yours in the battle that survives.",
  late_card: () => "Cards are revealed: you may play a Heimdall card late.",
  prowess: () => "Tyr's Prowess: keep one of your revealed cards for 1 Rage?",
  move_leader: () => "Lord of Hammers: you may move your leader to an adjacent province.",
  thors_domain: (p) => `Thor's Domain: pay 2 Rage to pillage ${areaName(p.area)} at once?`,
  succor: (p) => `Frigga's Succor: invade ${areaName(p.area)} with a free warrior too?`,
  blessing: (p) => `Loki's Blessing: invade ${areaName(p.area)} with a free warrior?`,
  sacrifice: () => "Frigga's Sacrifice: choose the second figure to destroy.",
  free_invade: (p) => `Upgrade played: invade with your ${unitName(p.unit)} for free?`,
  quest_stat: () => "Quest fulfilled: choose the clan stat to raise.",
  raise_stat: (p) => `Choose the clan stat to raise${p.excludedStat ? ` (not ${statName(p.excludedStat)})` : ""}.`,
};

const BY_STEP: Partial<Record<Step, string>> = {
  [Step.DRAFT_PICK]: "Gods' Gifts: pick a card from your pack.",
  [Step.ACTION]: "Your turn: choose an action.",
  [Step.MARCH]: "March under way: move more figures along, or end the march.",
  [Step.OFFER]: "An optional offer: accept or decline.",
  [Step.CALL_TO_BATTLE]: "Call to Battle: move one figure in from an adjacent province, or decline.",
  [Step.BATTLE_CARDS]: "Battle: secretly choose your battle card.",
  [Step.LATE_BATTLE_CARDS]: "Cards are revealed: you may play a card late.",
  [Step.BATTLE_CHOICE]: "A revealed card asks you to choose.",
  [Step.DISCARD]: "Discard phase: keep at most one card for the next Age.",
  [Step.STAT_CHOICE]: "Choose the clan stat to raise.",
};

/** The open prompt in words (what a rule or card asks, and of whom). */
export function promptText(prompt: PromptView, catalog: Catalog): string {
  const known = BY_PROMPT_KIND[prompt.kind];
  if (known) return known(prompt, catalog);
  const source = prompt.sourceCardKey ? `${catalog.nameOfKey(prompt.sourceCardKey)}: ` : "";
  return `${source}${prompt.kind.replace(/_/g, " ")}: choose.`;
}

/** What the viewer's awaited decision is about. */
export function decisionText(view: View, catalog: Catalog): string {
  const br = view.game.case === "bloodRage" ? view.game.value : undefined;
  if (br?.prompt) return promptText(br.prompt, catalog);
  return (br && BY_STEP[br.step]) ?? "Choose.";
}
