import { render } from "preact";
import { act } from "preact/test-utils";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { GameScreen } from "../src/components/Game.js";
import { TimeLeft } from "../src/components/Decision.js";
import { ResultScreen } from "../src/components/Result.js";
import { actionsByArea, actionsByCard } from "../src/actions.js";
import { Area } from "../src/gen/yggdrasil/v1/blood_rage_pb.js";
import { areaName } from "../src/names.js";
import { foldBattle, type BattleOutcome } from "../src/session.js";
import { br, catalog, events, state, view, useRoot } from "./fixtures.js";

const mounted = useRoot();
let root: HTMLElement;
beforeEach(() => {
  root = mounted();
});

const cat = catalog();
const show = (name: string, onChoose = vi.fn()) => {
  act(() => render(<GameScreen state={state(view(name))} catalog={cat} onChoose={onChoose} />, root));
  return onChoose;
};
const press = (key: string) => act(() => void document.dispatchEvent(new KeyboardEvent("keydown", { key, bubbles: true })));

describe("a seat's draft", () => {
  const v = view("draft-seat0");
  const pack = br(v).own!.draftPack;

  it("shows the pack with the catalog's names and texts, and one numbered button per legal action", () => {
    show("draft-seat0");
    expect(pack.length).toBeGreaterThan(0);
    for (const card of pack) {
      const info = cat.card(card.cardId)!;
      const tile = root.querySelector(`.own-cards [data-card="${card.cardId}"]`)!;
      expect(tile.textContent).toContain(info.name);
      expect(tile.textContent).toContain(info.text);
    }
    expect(root.querySelectorAll(".decision button.action").length).toBe(v.legalActions.length);
    expect(root.querySelector(".decision .prompt")!.textContent).toContain("pick a card");
  });

  it("chooses with number keys, as the command line does (1 = the first action)", () => {
    const chosen = show("draft-seat0");
    press("2");
    expect(chosen).toHaveBeenCalledWith(1);
  });

  it("clicking a card of the pack picks it", () => {
    const chosen = show("draft-seat0");
    const byCard = actionsByCard(v.legalActions);
    const card = pack.find((c) => byCard.get(c.instance)?.length === 1)!;
    (root.querySelector(`.own-cards button[data-card="${card.cardId}"]`) as HTMLButtonElement).click();
    expect(chosen).toHaveBeenCalledWith(byCard.get(card.instance)![0]);
  });

  it("shows the time left for a timed decision", () => {
    show("draft-seat0");
    expect(v.decisionDeadlineUnixMs).toBeGreaterThan(0n);
    expect(root.querySelector(".decision .time-left")!.textContent).toMatch(/\d+:\d\d left/);
  });
});

describe("a spectator's draft", () => {
  it("holds no card of any pack or hand, and offers no actions", () => {
    show("draft-spectator");
    expect(root.querySelector(".own-cards")).toBeNull();
    expect(root.querySelectorAll("button.action").length).toBe(0);
    const html = root.innerHTML.replace(/<svg class="board"[\s\S]*<\/svg>/, "");
    for (const card of br(view("draft-seat0")).own!.draftPack) {
      expect(html).not.toContain(cat.cardName(card.cardId));
      expect(html).not.toContain(card.cardId);
    }
    expect(root.textContent).toContain("Spectating");
  });
});

describe("the action phase", () => {
  const v = view("action-seat");

  it("a number that could grow waits for Enter; one that cannot chooses at once", () => {
    expect(v.legalActions.length).toBeGreaterThanOrEqual(20);
    expect(v.legalActions.length).toBeLessThan(100);
    const chosen = show("action-seat");
    press("2"); // 2 or 20..: wait
    expect(chosen).not.toHaveBeenCalled();
    press("Enter");
    expect(chosen).toHaveBeenLastCalledWith(1);
    press("1");
    press("2"); // 12: no action 120 exists, so no wait
    expect(chosen).toHaveBeenLastCalledWith(11);
  });

  it("clicking a province with several actions narrows the list to them", () => {
    const chosen = show("action-seat");
    const [area, indexes] = [...actionsByArea(v.legalActions)].find(([, list]) => list.length > 1)!;
    act(() => {
      root.querySelector(`g.target[data-area="${Area[area]}"]`)!.dispatchEvent(new MouseEvent("click", { bubbles: true }));
    });
    expect(root.querySelector(".decision .filter")!.textContent).toContain(areaName(area));
    const listed = [...root.querySelectorAll(".decision button.action")].map((b) => Number(b.getAttribute("data-index")));
    expect(listed).toEqual(indexes);
    expect(chosen).not.toHaveBeenCalled();
  });

  it("shows each clan's Rage, stats on their tracks, Glory and hand count", () => {
    show("action-seat");
    const data = br(v);
    for (const clan of data.clans) {
      const panel = root.querySelector(`.clan[data-seat="${clan.seat}"]`)!;
      expect(panel.textContent).toContain(`${clan.glory} Glory`);
      expect(panel.textContent).toContain(`${clan.rage} Rage left`);
      expect(panel.textContent).toContain(`${clan.handCount} card`);
      expect(panel.querySelectorAll(".step.on").length).toBe(3);
    }
  });
});

describe("battles", () => {
  it("lists the participants with their STR while cards are chosen", () => {
    const v = view("battle-cards-seat");
    show("battle-cards-seat");
    const battle = br(v).battle!;
    const rows = root.querySelectorAll(".battle-panel tbody tr");
    expect(rows.length).toBe(battle.participants.length);
    battle.participants.forEach((p, i) => expect(rows[i].textContent).toContain(String(p.figureStrength)));
  });

  it("shows revealed cards, totals and the outcome from the events", () => {
    const log = events();
    let outcome: BattleOutcome | undefined;
    for (const e of log) outcome = foldBattle(outcome, e);
    const resolved = log.filter((e) => e.payload.case === "bloodRage" && e.payload.value.kind.case === "battleResolved");
    expect(resolved.length).toBeGreaterThan(0);
    act(() =>
      render(<GameScreen state={state(view("finished-seat0"), { log, lastBattle: outcome })} catalog={cat} onChoose={vi.fn()} />, root),
    );
    const panel = root.querySelector(".battle-panel")!;
    expect(panel.textContent).toMatch(/wins|tie/);
    for (const t of outcome!.resolved?.totals ?? []) expect(panel.textContent).toContain(`${t.strength} STR`);
  });

  it("a prompt says what is asked (a late battle card)", () => {
    show("prompt-seat");
    expect(root.querySelector(".decision .prompt")!.textContent).toContain("play a Heimdall card late");
  });

  it("after the reveal, each participant's revealed cards and total", () => {
    const battle = br(view("prompt-seat")).battle!;
    expect(battle.revealed).toBe(true);
    show("prompt-seat");
    expect(root.querySelector(".battle-live")!.textContent).toContain("cards revealed");
    // Totals exist once the battle is compared (after the late cards): "?" until then.
    const compared = battle.participants.some((p) => p.totalStrength > 0);
    for (const p of battle.participants) {
      const row = root.querySelector(`.battle-live tr[data-seat="${p.seat}"]`)!;
      for (const card of p.revealedCards) expect(row.textContent).toContain(cat.cardName(card.cardId));
      expect(row.lastElementChild!.textContent).toBe(compared ? String(p.totalStrength) : "?");
    }
  });
});

describe("the result", () => {
  it("ranks the clans with their Glory and bonuses", () => {
    const v = view("finished-seat0");
    show("finished-seat0");
    const rows = root.querySelectorAll(".result tbody tr");
    expect(rows.length).toBe(v.result!.seats.length);
    for (const seat of v.result!.seats) {
      const row = root.querySelector(`.result tr[data-seat="${seat.seat}"]`)!;
      expect(row.querySelector("td")!.textContent).toBe(String(seat.rank));
      expect(row.textContent).toContain(String(seat.score));
    }
    expect(root.querySelector(".result .verdict")!.textContent).toMatch(/You won!|You finished #\d/);
    expect(root.querySelector(".own-cards")).toBeNull();
  });

  it("a spectator sees no verdict", () => {
    act(() => render(<ResultScreen result={view("finished-seat0").result!} />, root));
    expect(root.querySelector(".verdict")).toBeNull();
  });
});

describe("the clock", () => {
  it("counts down m:ss and turns urgent in the last 10 s", () => {
    act(() => render(<TimeLeft deadlineMs={BigInt(100_000 + 75_000)} now={() => 100_000} />, root));
    expect(root.textContent).toContain("1:15 left");
    act(() => render(<TimeLeft deadlineMs={BigInt(100_000 + 9_000)} now={() => 100_000} />, root));
    expect(root.querySelector(".time-left.urgent")).not.toBeNull();
  });
});
