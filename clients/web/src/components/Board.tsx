// The board as SVG: Yggdrasil in the centre, the 8 outer provinces in a ring (their region
// written under the name), the 4 fjords outside the ring beside the provinces they support.
// Each province shows its villages (empty ones as hollow rings), the figures in them, its
// pillage token, its place on the Ragnarök track, the Doom token and whether it is destroyed.
// Provinces a legal action names are outlined and clickable.
import type { JSX } from "preact";
import { useRef } from "preact/hooks";
import type { AreaInfo, BloodRageView, ProvinceView } from "../gen/yggdrasil/v1/blood_rage_pb.js";
import { Area, FigureLocation, Region, Unit } from "../gen/yggdrasil/v1/blood_rage_pb.js";
import { CLANS, areaName, clanOf, monsterCode, rewardName, unitName } from "../names.js";

const C = 500;
const RING_IN = 158;
const RING_OUT = 372;
const FJORD_IN = 386;
const FJORD_OUT = 482;
const YGG_R = 146;

/** Outer provinces clockwise (ring 0..7), as the board's data lists them. */
export const RING: readonly Area[] = [
  Area.MYRKULOR,
  Area.ELVAGAR,
  Area.ANGERBODA,
  Area.MUSPELHEIM,
  Area.HORGR,
  Area.UTGARD,
  Area.ANDLANG,
  Area.GIMLE,
];
/** Fjords and the two ring positions each lies beside. */
const FJORDS: readonly [Area, number][] = [
  [Area.NORTH_FJORD, 1],
  [Area.EAST_FJORD, 3],
  [Area.SOUTH_FJORD, 5],
  [Area.WEST_FJORD, 7],
];

const REGION_TINT: Record<number, string> = {
  [Region.MANHEIM]: "#e9efd9",
  [Region.JOTUNHEIM]: "#f3e2d3",
  [Region.ALFHEIM]: "#dde9f3",
};
const REGION_NAME: Record<number, string> = {
  [Region.MANHEIM]: "Manheim",
  [Region.JOTUNHEIM]: "Jotunheim",
  [Region.ALFHEIM]: "Alfheim",
};

/** Centre angle (degrees, 0 = right, clockwise) of ring position ``i``: the North fjord's
 *  provinces (1, 2) sit at the top. */
function ringAngle(i: number): number {
  return -90 + (i - 1.5) * 45;
}

function polar(r: number, degrees: number): [number, number] {
  const a = (degrees * Math.PI) / 180;
  return [C + r * Math.cos(a), C + r * Math.sin(a)];
}

function annulusPath(rIn: number, rOut: number, from: number, to: number): string {
  const [x1, y1] = polar(rOut, from);
  const [x2, y2] = polar(rOut, to);
  const [x3, y3] = polar(rIn, to);
  const [x4, y4] = polar(rIn, from);
  const large = to - from > 180 ? 1 : 0;
  return (
    `M${x1.toFixed(1)},${y1.toFixed(1)} A${rOut},${rOut} 0 ${large} 1 ${x2.toFixed(1)},${y2.toFixed(1)} ` +
    `L${x3.toFixed(1)},${y3.toFixed(1)} A${rIn},${rIn} 0 ${large} 0 ${x4.toFixed(1)},${y4.toFixed(1)} Z`
  );
}

export interface Placed {
  seat: number;
  unit: Unit;
}

/** Figures on the board by area, in seat then unit order. */
export function figuresByArea(view: BloodRageView): Map<Area, Placed[]> {
  const byArea = new Map<Area, Placed[]>();
  for (const clan of view.clans) {
    for (const figure of clan.figures) {
      if (figure.location !== FigureLocation.BOARD) continue;
      const list = byArea.get(figure.area) ?? [];
      list.push({ seat: clan.seat, unit: figure.unit });
      byArea.set(figure.area, list);
    }
  }
  for (const list of byArea.values()) list.sort((a, b) => a.seat - b.seat || a.unit - b.unit);
  return byArea;
}

/** How the figures changed from the view before: per area, the ones that arrived (by
 *  "seat:unit", how many) and the ones that left (drawn a moment longer, fading). */
export interface FigureMoves {
  arrived: Map<Area, Map<string, number>>;
  left: Map<Area, Placed[]>;
}

export function figureMoves(before: Map<Area, Placed[]>, after: Map<Area, Placed[]>): FigureMoves {
  const count = (list: Placed[] | undefined) => {
    const out = new Map<string, number>();
    for (const f of list ?? []) out.set(`${f.seat}:${f.unit}`, (out.get(`${f.seat}:${f.unit}`) ?? 0) + 1);
    return out;
  };
  const moves: FigureMoves = { arrived: new Map(), left: new Map() };
  for (const area of new Set([...before.keys(), ...after.keys()])) {
    const was = count(before.get(area));
    const now = count(after.get(area));
    for (const [key, n] of now) {
      const more = n - (was.get(key) ?? 0);
      if (more > 0) {
        const arrived = moves.arrived.get(area) ?? new Map<string, number>();
        arrived.set(key, more);
        moves.arrived.set(area, arrived);
      }
    }
    for (const [key, n] of was) {
      const fewer = n - (now.get(key) ?? 0);
      if (fewer > 0) {
        const [seat, unit] = key.split(":").map(Number);
        const left = moves.left.get(area) ?? [];
        for (let i = 0; i < fewer; i++) left.push({ seat, unit: unit as Unit });
        moves.left.set(area, left);
      }
    }
  }
  return moves;
}

/** The figures of an area with how each is drawn: "arrive" (just came), "" or, after them,
 *  the ones that just left ("leave"). */
function withMoves(area: Area, here: Placed[], moves: FigureMoves | undefined): [Placed, string][] {
  const arrived = new Map(moves?.arrived.get(area) ?? []);
  const out: [Placed, string][] = [];
  for (let k = here.length - 1; k >= 0; k--) {
    const key = `${here[k].seat}:${here[k].unit}`;
    const n = arrived.get(key) ?? 0;
    if (n > 0) arrived.set(key, n - 1);
    out.unshift([here[k], n > 0 ? "arrive" : ""]);
  }
  for (const gone of moves?.left.get(area) ?? []) out.push([gone, "leave"]);
  return out;
}

export function FigureGlyph(props: { x: number; y: number; seat: number; unit: Unit; motion?: string; title?: string }) {
  const { x, y, seat, unit, motion } = props;
  const clan = seat < 0 ? { name: "A clan's", mark: "", colour: "#c9c4b8", pattern: "" } : clanOf(seat);
  const title = props.title ?? `${clan.name} ${unitName(unit)}`;
  let body: JSX.Element;
  let fillOverlay: JSX.Element | null = null;
  if (unit === Unit.SHIP) {
    const d = `M${x - 20},${y - 4} L${x + 20},${y - 4} L${x + 12},${y + 10} L${x - 12},${y + 10} Z`;
    body = <path d={d} fill={clan.colour} stroke="#222" stroke-width="1.5" />;
    fillOverlay = clan.pattern ? <path d={d} fill={`url(#${clan.pattern})`} /> : null;
  } else if (unit === Unit.LEADER || unit === Unit.WARRIOR) {
    const r = unit === Unit.LEADER ? 17 : 14;
    body = (
      <circle
        cx={x}
        cy={y}
        r={r}
        fill={clan.colour}
        stroke={unit === Unit.LEADER ? "#f5c542" : "#222"}
        stroke-width={unit === Unit.LEADER ? 3.5 : 1.5}
      />
    );
    fillOverlay = clan.pattern ? <circle cx={x} cy={y} r={r} fill={`url(#${clan.pattern})`} /> : null;
  } else {
    const pts = [0, 60, 120, 180, 240, 300]
      .map((a) => {
        const rad = (a * Math.PI) / 180;
        return `${(x + 20 * Math.cos(rad)).toFixed(1)},${(y + 20 * Math.sin(rad)).toFixed(1)}`;
      })
      .join(" ");
    body = <polygon points={pts} fill={clan.colour} stroke="#111" stroke-width="2.5" />;
    fillOverlay = clan.pattern ? <polygon points={pts} fill={`url(#${clan.pattern})`} /> : null;
  }
  const monster = unit !== Unit.LEADER && unit !== Unit.WARRIOR && unit !== Unit.SHIP;
  const label = monster && clan.mark ? `${clan.mark}·${monsterCode(unit)}` : clan.mark;
  return (
    <g class={motion ? `figure ${motion}` : "figure"} data-seat={seat} data-unit={Unit[unit]}>
      <title>{title}</title>
      {body}
      {fillOverlay}
      <text x={x} y={y + (monster ? 4 : 5)} class={monster ? "figure-mark small" : "figure-mark"} text-anchor="middle">
        {label}
      </text>
    </g>
  );
}

function Patterns() {
  return (
    <defs>
      <pattern id="pat-raven" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">
        <rect width="2" height="6" fill="rgba(255,255,255,0.45)" />
      </pattern>
      <pattern id="pat-serpent" width="6" height="6" patternUnits="userSpaceOnUse">
        <circle cx="3" cy="3" r="1.3" fill="rgba(255,255,255,0.55)" />
      </pattern>
      <pattern id="pat-bear" width="7" height="7" patternUnits="userSpaceOnUse">
        <path d="M0,0 L7,7 M7,0 L0,7" stroke="rgba(0,0,0,0.35)" stroke-width="1.2" />
      </pattern>
      <pattern id="pat-ram" width="6" height="6" patternUnits="userSpaceOnUse">
        <rect width="6" height="2" fill="rgba(0,0,0,0.3)" />
      </pattern>
      <pattern id="pat-destroyed" width="14" height="14" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">
        <rect width="14" height="14" fill="#5b5b5b" />
        <rect width="5" height="14" fill="#474747" />
      </pattern>
      <marker id="arrow" viewBox="0 0 10 10" refX="8" refY="5" markerWidth="7" markerHeight="7" orient="auto">
        <path d="M0,0 L10,5 L0,10 Z" fill="#222" />
      </marker>
    </defs>
  );
}

function Token(props: { x: number; y: number; province: ProvinceView }) {
  const { x, y, province } = props;
  const text = rewardName(province.reward);
  if (!text) return null;
  return (
    <g class={province.pillaged ? "token pillaged" : "token"}>
      <title>{province.pillaged ? `Pillaged (${text})` : `Pillage reward: ${text}`}</title>
      <rect x={x - 38} y={y - 13} width="76" height="26" rx="6" />
      <text x={x} y={y + 5} text-anchor="middle">
        {province.pillaged ? "pillaged" : text}
      </text>
    </g>
  );
}

/** Village positions of an outer province: one arc row, or two for 4-5 villages. */
function villageSpots(angle: number, villages: number): [number, number][] {
  const rows = villages <= 3 ? [villages] : [Math.ceil(villages / 2), Math.floor(villages / 2)];
  const radii = villages <= 3 ? [262] : [238, 288];
  const spots: [number, number][] = [];
  rows.forEach((count, row) => {
    const step = row === 0 && villages > 3 ? 10.5 : 9;
    for (let k = 0; k < count; k++) spots.push(polar(radii[row], angle + (k - (count - 1) / 2) * step));
  });
  return spots;
}

export interface BoardProps {
  view: BloodRageView;
  areas: readonly AreaInfo[];
  /** Legal action indexes by the area they name. */
  targets: Map<Area, number[]>;
  selected?: Area;
  onArea?: (area: Area) => void;
  /** The places the last move named: outlined. */
  highlight?: Set<Area>;
}

export function Board(props: BoardProps) {
  const { view, areas, targets, selected, onArea, highlight } = props;
  const figures = figuresByArea(view);
  // Figures that moved since the view before come in (and those gone fade out) briefly.
  const last = useRef<{ view?: BloodRageView; figures?: Map<Area, Placed[]>; moves?: FigureMoves }>({});
  if (last.current.view !== view) {
    const before = last.current.figures;
    last.current = { view, figures, moves: before ? figureMoves(before, figures) : undefined };
  }
  const moves = last.current.moves;
  const provinces = new Map(view.provinces.map((p) => [p.area, p]));
  const info = new Map(areas.map((a) => [a.area, a]));
  const battleArea = view.battle?.province;
  const march = view.march;

  const areaClass = (area: Area, base: string) => {
    const classes = [base];
    if (targets.has(area)) classes.push("target");
    if (selected === area) classes.push("selected");
    if (battleArea === area) classes.push("battle");
    if (highlight?.has(area)) classes.push("last-move");
    return classes.join(" ");
  };
  const click = (area: Area) => (targets.has(area) && onArea ? () => onArea(area) : undefined);
  const keyed = (area: Area) =>
    targets.has(area) && onArea
      ? {
          tabIndex: 0,
          role: "button" as const,
          onKeyDown: (e: KeyboardEvent) => {
            if (e.key === "Enter" || e.key === " ") {
              e.preventDefault();
              onArea(area);
            }
          },
        }
      : {};

  const ring = RING.map((area, i) => {
    const angle = ringAngle(i);
    const province = provinces.get(area);
    const data = info.get(area);
    const destroyed = province?.destroyed ?? false;
    const here = figures.get(area) ?? [];
    const drawn = withMoves(area, here, moves);
    const villages = Math.max(data?.villages ?? 3, drawn.length);
    const spots = villageSpots(angle, villages);
    const [tx, ty] = polar(190, angle);
    const region = data?.region ?? Region.UNSPECIFIED;
    return (
      <g
        class={areaClass(area, destroyed ? "province destroyed" : "province")}
        data-area={Area[area]}
        onClick={click(area)}
        aria-label={`${areaName(area)}${destroyed ? " (destroyed)" : ""}${targets.has(area) ? " (choose)" : ""}`}
        {...keyed(area)}
      >
        <path
          class="area-shape"
          d={annulusPath(RING_IN, RING_OUT, angle - 22, angle + 22)}
          fill={destroyed ? "url(#pat-destroyed)" : (REGION_TINT[region] ?? "#eee")}
        />
        {!destroyed && province ? <Token x={tx} y={ty} province={province} /> : null}
        {spots.map(([x, y], k) =>
          k < drawn.length ? (
            <FigureGlyph key={`${k}:${drawn[k][0].seat}:${drawn[k][0].unit}:${drawn[k][1]}`} x={x} y={y} seat={drawn[k][0].seat} unit={drawn[k][0].unit} motion={drawn[k][1]} />
          ) : !destroyed ? (
            <circle class="village" cx={x} cy={y} r="12" />
          ) : null,
        )}
      </g>
    );
  });

  // Names, regions, Ragnarök and Doom on top of every shape, so no neighbour covers them.
  const labels = RING.map((area, i) => {
    const angle = ringAngle(i);
    const province = provinces.get(area);
    const destroyed = province?.destroyed ?? false;
    const region = info.get(area)?.region ?? Region.UNSPECIFIED;
    const rag = province?.ragnarokAge ?? 0;
    // Name, region, then the Ragnarök line of its own: one long line ran over the villages.
    const [nx, ny] = polar(338, angle);
    const lines = rag && !destroyed ? 3 : 2;
    const top = ny - (lines === 3 ? 14 : 4);
    return (
      <g class={destroyed ? "label destroyed" : "label"}>
        <text x={nx} y={top} class="area-name" text-anchor="middle">
          {areaName(area)}
        </text>
        <text x={nx} y={top + 17} class="area-sub" text-anchor="middle">
          {destroyed ? "destroyed" : (REGION_NAME[region] ?? "")}
        </text>
        {lines === 3 ? (
          <text x={nx} y={top + 33} class="area-sub ragnarok-line" text-anchor="middle">
            Ragnarök {rag}
            {province?.doom ? (
              <tspan class="doom">
                {" "}
                · DOOM<title>Doom: destroyed at the end of this Age</title>
              </tspan>
            ) : null}
          </text>
        ) : null}
      </g>
    );
  });

  const fjords = FJORDS.map(([area, firstRing]) => {
    const angle = ringAngle(firstRing) + 22.5;
    const here = withMoves(area, figures.get(area) ?? [], moves);
    const [nx, ny] = polar(FJORD_OUT - 22, angle);
    const step = 10;
    return (
      <g
        class={areaClass(area, "fjord")}
        data-area={Area[area]}
        onClick={click(area)}
        aria-label={`${areaName(area)}${targets.has(area) ? " (choose)" : ""}`}
        {...keyed(area)}
      >
        <path class="area-shape" d={annulusPath(FJORD_IN, FJORD_OUT, angle - 43, angle + 43)} fill="#c9dcea" />
        <text
          x={nx}
          y={ny + 6}
          class="area-name fjord-name"
          text-anchor="middle"
          transform={Math.abs(Math.cos((angle * Math.PI) / 180)) > 0.7 ? `rotate(${angle > 90 || angle < -90 ? -90 : 90} ${nx} ${ny})` : undefined}
        >
          {areaName(area)}
        </text>
        {here.map(([figure, motion], k) => {
          const [x, y] = polar(416, angle + (k - (here.length - 1) / 2) * step);
          return <FigureGlyph key={`${k}:${figure.seat}:${figure.unit}:${motion}`} x={x} y={y} seat={figure.seat} unit={figure.unit} motion={motion} />;
        })}
      </g>
    );
  });

  const centre = provinces.get(Area.YGGDRASIL);
  const inCentre = withMoves(Area.YGGDRASIL, figures.get(Area.YGGDRASIL) ?? [], moves);
  const perRow = 6;
  const centreFigures = inCentre.map(([figure, motion], k) => {
    const row = Math.floor(k / perRow);
    const inRow = Math.min(perRow, inCentre.length - row * perRow);
    const x = C + (k % perRow - (inRow - 1) / 2) * 38;
    const y = C + 20 + row * 38;
    return <FigureGlyph key={`${k}:${figure.seat}:${figure.unit}:${motion}`} x={x} y={y} seat={figure.seat} unit={figure.unit} motion={motion} />;
  });

  let marchArrow: JSX.Element | null = null;
  if (march && march.fromArea && march.toArea) {
    const spot = (area: Area): [number, number] => {
      if (area === Area.YGGDRASIL) return [C, C];
      const i = RING.indexOf(area);
      return i >= 0 ? polar(265, ringAngle(i)) : [C, C];
    };
    const [x1, y1] = spot(march.fromArea);
    const [x2, y2] = spot(march.toArea);
    marchArrow = (
      <line class="march" x1={x1} y1={y1} x2={x2} y2={y2} marker-end="url(#arrow)">
        <title>{`${clanOf(march.seat).name} marches ${areaName(march.fromArea)} → ${areaName(march.toArea)}`}</title>
      </line>
    );
  }

  return (
    <svg class="board" viewBox="0 0 1000 1000" role="img" aria-label="The board">
      <Patterns />
      {fjords}
      {ring}
      <g
        class={areaClass(Area.YGGDRASIL, "province yggdrasil")}
        data-area="YGGDRASIL"
        onClick={click(Area.YGGDRASIL)}
        aria-label={`Yggdrasil${targets.has(Area.YGGDRASIL) ? " (choose)" : ""}`}
        {...keyed(Area.YGGDRASIL)}
      >
        <circle class="area-shape" cx={C} cy={C} r={YGG_R} fill="#f4efd8" />
        <text x={C} y={C - 92} class="area-name" text-anchor="middle">
          Yggdrasil
        </text>
        {centre ? <Token x={C} y={C - 58} province={centre} /> : null}
        {centreFigures}
      </g>
      <g class="labels">{labels}</g>
      {marchArrow}
      <Legend clans={view.clans.length} />
    </svg>
  );
}

/** Which mark and shape means what, in the board's corner. */
function Legend(props: { clans: number }) {
  return (
    <g class="legend" transform="translate(8, 920)">
      <text x="0" y="0" class="legend-title">
        Figures
      </text>
      <FigureGlyph x={14} y={26} seat={-1} unit={Unit.LEADER} />
      <text x="36" y="31">leader</text>
      <FigureGlyph x={104} y={26} seat={-1} unit={Unit.WARRIOR} />
      <text x="124" y="31">warrior</text>
      <FigureGlyph x={200} y={26} seat={-1} unit={Unit.TROLL} title="a monster (its name on hover)" />
      <text x="222" y="31">monster</text>
      <text x="0" y="64" class="legend-clans">
        {CLANS.slice(0, props.clans)
          .map((c) => `${c.mark} = ${c.name}`)
          .join("  ")}
      </text>
    </g>
  );
}
