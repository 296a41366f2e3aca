import { clone, create } from "@bufbuild/protobuf";
import { render } from "preact";
import { describe, expect, it } from "vitest";
import { Board, figureMoves, figuresByArea } from "../src/components/Board.js";
import { ReplayViewer, type ReplayStep } from "../src/components/Replay.js";
import { ClanPanels } from "../src/components/Panels.js";
import { AgeTrack, GloryTrack, Valhalla } from "../src/components/Tracks.js";
import { Decision } from "../src/components/Decision.js";
import { describeEvent } from "../src/events.js";
import {
  Area,
  BloodRageViewSchema,
  FigureLocation,
  Phase,
  StatReason,
  Unit,
} from "../src/gen/yggdrasil/v1/blood_rage_pb.js";
import { EventSchema, ViewSchema } from "../src/gen/yggdrasil/v1/game_pb.js";
import { lastGroup, lastMove } from "../src/lastMove.js";
import { unitName } from "../src/names.js";
import { br, catalog, events, useRoot, view } from "./fixtures.js";

const mounted = useRoot();
const cat = catalog();

describe("the tracks", () => {
  it("puts every clan on the Glory track at its Glory, tied clans one above the other", () => {
    const v = create(BloodRageViewSchema, br(view("action-seat")));
    v.clans[0].glory = 12;
    v.clans[1].glory = 12;
    v.clans[2].glory = 40;
    const root = mounted();
    render(<GloryTrack view={v} />, root);
    const markers = [...root.querySelectorAll(".glory-marker")];
    expect(markers.length).toBe(v.clans.length);
    const at = (seat: number) => root.querySelector(`.glory-marker[data-seat="${seat}"]`)!.getAttribute("style")!;
    const x = (style: string) => Number(/translate\(([\d.]+)px/.exec(style)![1]);
    const y = (style: string) => Number(/, ([\d.]+)px\)/.exec(style)![1]);
    expect(x(at(0))).toBe(x(at(1)));
    expect(y(at(0))).not.toBe(y(at(1)));
    expect(x(at(2))).toBeGreaterThan(x(at(0)));
    expect(root.querySelector(".track-legend")!.textContent).toContain("40");
  });

  it("shows the Ages with their Ragnarök provinces, the current Age and phase", () => {
    const v = br(view("action-seat"));
    const root = mounted();
    render(<AgeTrack view={v} />, root);
    expect(root.querySelectorAll(".age").length).toBe(3);
    expect(root.querySelector(".age.now")!.getAttribute("data-age")).toBe(String(v.age));
    expect(root.querySelector(".phases .now")!.textContent).toBe("Action");
    for (const area of v.ragnarokSlots) expect(root.textContent).toContain(cat.area(area)!.name);
  });

  it("shows the figures in Valhalla by clan", () => {
    const v = create(BloodRageViewSchema, br(view("action-seat")));
    const reserve = v.clans[1].figures.find((f) => f.location === FigureLocation.RESERVE)!;
    reserve.location = FigureLocation.VALHALLA;
    const root = mounted();
    render(<Valhalla view={v} />, root);
    const clan = root.querySelector('.valhalla-clans li[data-seat="1"]')!;
    expect(clan.querySelectorAll(".figure").length).toBe(v.clans[1].figures.filter((f) => f.location === FigureLocation.VALHALLA).length);
    expect(root.querySelector("h2")!.textContent).toContain("back at the Age's end");
  });
});

describe("the last move and moving figures", () => {
  it("outlines the places the last decision's events name", () => {
    const log = events();
    const group = lastGroup(log);
    expect(group.length).toBeGreaterThan(0);
    expect(new Set(group.map((e) => e.stateVersion)).size).toBe(1);
    const march = create(EventSchema, {
      sequence: 9n,
      stateVersion: 4n,
      payload: {
        case: "bloodRage",
        value: {
          kind: {
            case: "actionApplied",
            value: { seat: 2, action: { kind: { case: "march", value: { fromArea: Area.GIMLE, toArea: Area.YGGDRASIL, unit: Unit.LEADER } } } },
          },
        },
      },
    });
    const moved = lastMove([march])!;
    expect(moved.seat).toBe(2);
    expect([...moved.areas].sort()).toEqual([Area.YGGDRASIL, Area.GIMLE].sort());
    const v = br(view("action-seat"));
    const root = mounted();
    render(<Board view={v} areas={cat.areas} targets={new Map()} highlight={moved.areas} />, root);
    expect(root.querySelector('g[data-area="GIMLE"]')!.classList.contains("last-move")).toBe(true);
    expect(root.querySelectorAll(".last-move").length).toBe(2);
  });

  it("animates figures that arrive and keeps those that left a moment, fading", () => {
    const before = br(view("action-seat"));
    const after = clone(BloodRageViewSchema, before);
    const mover = after.clans.flatMap((c) => c.figures.map((f) => ({ seat: c.seat, f }))).find((x) => x.f.location === FigureLocation.BOARD && x.f.area !== Area.YGGDRASIL)!;
    const from = mover.f.area;
    mover.f.area = Area.YGGDRASIL;
    const moves = figureMoves(figuresByArea(before), figuresByArea(after));
    expect(moves.arrived.get(Area.YGGDRASIL)?.get(`${mover.seat}:${mover.f.unit}`)).toBe(1);
    expect(moves.left.get(from)).toEqual([{ seat: mover.seat, unit: mover.f.unit }]);
    const root = mounted();
    render(<Board view={before} areas={cat.areas} targets={new Map()} />, root);
    expect(root.querySelectorAll(".figure.arrive, .figure.leave").length).toBe(0); // nothing moved yet
    render(<Board view={after} areas={cat.areas} targets={new Map()} />, root);
    expect(root.querySelectorAll('g[data-area="YGGDRASIL"] .figure.arrive').length).toBe(1);
    expect(root.querySelectorAll(`g[data-area="${Area[from]}"] .figure.leave`).length).toBe(1);
  });
});

describe("names and events", () => {
  it("names monsters with capitals and basic figures in lower case", () => {
    expect(unitName(Unit.DWARF_CHIEFTAIN)).toBe("Dwarf Chieftain");
    expect(unitName(Unit.VOLUR_WITCH)).toBe("Volur Witch");
    expect(unitName(Unit.LEADER)).toBe("leader");
  });

  it("says why a stat rose, and its step", () => {
    const event = create(EventSchema, {
      payload: {
        case: "bloodRage",
        value: {
          kind: {
            case: "statChanged",
            value: { seat: 0, previousStep: 5, level: { stat: 1, step: 6, value: 12 }, reason: StatReason.QUEST },
          },
        },
      },
    });
    expect(describeEvent(event, cat, []).text).toBe("Wolf: Rage step 5 → 6 (12), quest fulfilled");
  });

  it("lists every event of a recorded game with a text of its own", () => {
    for (const e of events()) expect(describeEvent(e, cat, []).text).not.toContain("does not know");
  });
});

describe("costs and upgrades", () => {
  it("shows what each legal action costs", () => {
    const v = view("action-seat");
    const root = mounted();
    render(<Decision view={v} catalog={cat} onShowAll={() => {}} onChoose={() => {}} submitting={false} typed="" />, root);
    const costed = v.legalActions.filter((a) => a.action?.game.case === "bloodRage" && a.action.game.value.details?.rageCost);
    expect(costed.length).toBeGreaterThan(0);
    expect(root.querySelectorAll(".action .cost").length).toBeGreaterThanOrEqual(costed.length - 1); // pass says its own
  });

  it("opens an opponent's upgrade card on a tap", () => {
    const v = create(BloodRageViewSchema, br(view("finished-seat0")));
    const withUpgrade = v.clans.find((c) => c.upgrades.length)!;
    const root = mounted();
    render(<ClanPanels view={v} viewer={undefined} awaiting={[]} committed={[]} />, root);
    const chip = root.querySelector(`.clan[data-seat="${withUpgrade.seat}"] .upgrade`)!;
    (chip.querySelector("button") as HTMLButtonElement).click();
    return Promise.resolve().then(() => {
      expect(root.querySelector(`.clan[data-seat="${withUpgrade.seat}"] .upgrade.open .card-pop`)!.textContent).toContain(withUpgrade.upgrades[0].info!.text.slice(0, 20));
    });
  });
});

describe("the replay viewer", () => {
  it("steps through the decisions with the board as it was", async () => {
    const first = view("draft-spectator");
    const later = view("finished-seat0");
    const laterSpectator = create(ViewSchema, later);
    laterSpectator.viewerSeat = undefined;
    const steps: ReplayStep[] = [
      { view: first, events: [] },
      { view: laterSpectator, events: events().slice(-5) },
    ];
    const root = mounted();
    render(<ReplayViewer steps={steps} catalog={cat} />, root);
    expect(root.querySelector(".replay")!.getAttribute("data-step")).toBe("0");
    expect(root.textContent).toContain("The game before its first event.");
    const next = root.querySelector('button[aria-label="step forward"]') as HTMLButtonElement;
    next.click();
    await new Promise((r) => setTimeout(r, 0));
    expect(root.querySelector(".replay")!.getAttribute("data-step")).toBe("1");
    expect(root.querySelectorAll(".replay-events .event").length).toBe(5);
    expect(root.querySelector(".result")).not.toBeNull(); // the last step of a finished game
    document.dispatchEvent(new KeyboardEvent("keydown", { key: "ArrowLeft" }));
    await new Promise((r) => setTimeout(r, 0));
    expect(root.querySelector(".replay")!.getAttribute("data-step")).toBe("0");
    expect(br(first).phase).toBe(Phase.DRAFT);
  });
});
