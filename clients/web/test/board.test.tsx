import { render } from "preact";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { Board, figuresByArea } from "../src/components/Board.js";
import { actionsByArea } from "../src/actions.js";
import { create } from "@bufbuild/protobuf";
import { Area, BloodRageViewSchema, FigureLocation } from "../src/gen/yggdrasil/v1/blood_rage_pb.js";
import { areaName } from "../src/names.js";
import { br, catalog, view, useRoot } from "./fixtures.js";

const mounted = useRoot();
let root: HTMLElement;
beforeEach(() => {
  root = mounted();
});

describe("the board", () => {
  const v = view("action-seat");
  const data = br(v);
  const cat = catalog();

  it("draws the 9 provinces and the 4 fjords", () => {
    render(<Board view={data} areas={cat.areas} targets={new Map()} />, root);
    expect(root.querySelectorAll("g.province").length).toBe(9);
    expect(root.querySelectorAll("g.fjord").length).toBe(4);
    for (const p of data.provinces) expect(root.textContent).toContain(areaName(p.area));
  });

  it("shows every figure on the board in its area, in its clan's mark", () => {
    render(<Board view={data} areas={cat.areas} targets={new Map()} />, root);
    const onBoard = data.clans.flatMap((c) => c.figures.filter((f) => f.location === FigureLocation.BOARD).map((f) => ({ seat: c.seat, area: f.area })));
    expect(onBoard.length).toBeGreaterThanOrEqual(4);
    for (const [area, figures] of figuresByArea(data)) {
      const group = root.querySelector(`g[data-area="${Area[area]}"]`)!;
      const drawn = [...group.querySelectorAll(".figure")].map((g) => Number(g.getAttribute("data-seat")));
      expect(drawn.sort()).toEqual(figures.map((f) => f.seat).sort());
    }
    const drawnTotal = root.querySelectorAll("g.province .figure, g.fjord .figure").length;
    expect(drawnTotal).toBe(onBoard.length);
  });

  it("marks destroyed provinces, the Ragnarök track, Doom and pillaged tokens", () => {
    render(<Board view={data} areas={cat.areas} targets={new Map()} />, root);
    const destroyed = data.provinces.filter((p) => p.destroyed);
    expect(destroyed.length).toBe(2); // 3 players: 2 destroyed at set-up
    for (const p of destroyed) {
      expect(root.querySelector(`g[data-area="${Area[p.area]}"]`)!.classList.contains("destroyed")).toBe(true);
    }
    expect(data.provinces.filter((x) => x.ragnarokAge && !x.destroyed).length).toBeGreaterThan(0);
    const labels = root.querySelector(".labels")!.textContent!;
    for (const p of data.provinces.filter((x) => x.ragnarokAge && !x.destroyed)) expect(labels).toContain(`Ragnarök ${p.ragnarokAge}`);
    const doomed = data.provinces.filter((p) => p.doom && !p.destroyed);
    expect(doomed.length).toBe(1);
    expect(root.querySelectorAll(".doom").length).toBe(1);
    expect(labels).toContain("DOOM");
    expect(root.querySelectorAll(".token.pillaged").length).toBe(data.provinces.filter((p) => p.pillaged && !p.destroyed).length);
  });

  it("turns a pillaged token over", () => {
    const copy = create(BloodRageViewSchema, data);
    const target = copy.provinces.find((p) => !p.destroyed && p.area !== Area.YGGDRASIL)!;
    target.pillaged = true;
    render(<Board view={copy} areas={cat.areas} targets={new Map()} />, root);
    const tokens = root.querySelectorAll(".token.pillaged");
    expect(tokens.length).toBe(1);
    expect(tokens[0].closest("g[data-area]")!.getAttribute("data-area")).toBe(Area[target.area]);
    expect(tokens[0].textContent).toContain("pillaged");
  });

  it("outlines the areas a legal action names and reports clicks on them", () => {
    const targets = actionsByArea(v.legalActions);
    expect(targets.size).toBeGreaterThan(1);
    const onArea = vi.fn();
    render(<Board view={data} areas={cat.areas} targets={targets} onArea={onArea} />, root);
    const outlined = [...root.querySelectorAll("g.target")].map((g) => g.getAttribute("data-area"));
    expect(outlined.sort()).toEqual([...targets.keys()].map((a) => Area[a]).sort());
    const first = [...targets.keys()][0];
    (root.querySelector(`g[data-area="${Area[first]}"]`) as SVGGElement).dispatchEvent(new MouseEvent("click", { bubbles: true }));
    expect(onArea).toHaveBeenCalledWith(first);
  });
});
