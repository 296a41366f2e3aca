// The Fire & Axe game page: FaeGameScreen draws one session state (the board from the game's
// data pack, the decision, the Days track, the Wind Dial, the Goods in Demand, the seats, the
// Sagas, the viewer's Runes, the log, the result); FaeGamePage connects it to a live
// GameSession (the same as every game's) and loads the packs (GetCatalog, kind FIRE_AND_AXE).
import { useEffect, useMemo, useState } from "preact/hooks";
import type { GameClient } from "../api.js";
import { TimeLeft } from "../components/Decision.js";
import type {
  FireAndAxeCatalog,
  FireAndAxeSeatView,
  FireAndAxeView,
} from "../gen/yggdrasil/v1/fire_and_axe_pb.js";
import { FireAndAxeSagaType, FireAndAxeTownSize } from "../gen/yggdrasil/v1/fire_and_axe_pb.js";
import type { Event, GameResult, View } from "../gen/yggdrasil/v1/game_pb.js";
import { GameStatus } from "../gen/yggdrasil/v1/game_pb.js";
import { useNumberKeys } from "../numberKeys.js";
import { GameSession, type SessionState } from "../session.js";
import type { SeatTokens } from "../tokens.js";
import { FaeBoard } from "./FaeBoard.js";
import { FaeCatalogCache, FaePack } from "./catalog.js";
import { END_REASONS, describeFaeEvent } from "./events.js";
import { AGES, DEMO_NOTE, GOOD_COLOURS, GOODS, HOMELAND_COLOURS, HOMELANDS, SAGA_TYPES, STEPS, ZONES, seatOf } from "./names.js";
import "./fae.css";

export function SeatMark(props: { seat: number }) {
  const look = seatOf(props.seat);
  return (
    <span class="clan-mark" style={{ background: look.colour }} aria-hidden="true">
      {look.mark}
    </span>
  );
}

type Selection = { place: number } | { rune: number } | undefined;

/** Legal action indexes by the place they go to (Sail, leaving the Wintering Zone). */
export function actionsByPlace(view: View): Map<number, number[]> {
  const out = new Map<number, number[]>();
  view.legalActions.forEach((legal, i) => {
    const a = legal.action?.game;
    if (a?.case !== "fireAndAxe") return;
    const k = a.value.kind;
    const place = k.case === "sail" ? k.value.to : k.case === "leaveWintering" ? k.value.homeland : undefined;
    if (place !== undefined) out.set(place, [...(out.get(place) ?? []), i]);
  });
  return out;
}

/** Legal action indexes by the Rune they play or discard. */
export function actionsByRune(view: View): Map<number, number[]> {
  const out = new Map<number, number[]>();
  view.legalActions.forEach((legal, i) => {
    const a = legal.action?.game;
    if (a?.case !== "fireAndAxe") return;
    const k = a.value.kind;
    const rune = k.case === "playRune" || k.case === "discardRune" ? k.value.rune : undefined;
    if (rune !== undefined) out.set(rune, [...(out.get(rune) ?? []), i]);
  });
  return out;
}

function who(seat: number, names: readonly string[]): string {
  const name = names[seat];
  return name && name !== seatOf(seat).name ? `${seatOf(seat).name} (${name})` : seatOf(seat).name;
}

function DemoBanner(props: { fae: FireAndAxeView }) {
  const info = props.fae.pack;
  if (!info) return null;
  return info.demo ? (
    <p class="demo-banner" role="note">
      <b>{DEMO_NOTE}.</b> The rulebook gives no map or card faces: this pack keeps every value it gives and invents the rest, and the
      board below is a schematic of its map.
    </p>
  ) : (
    <p class="pack-note">Data pack: {info.name}</p>
  );
}

function Tracks(props: { fae: FireAndAxeView }) {
  const f = props.fae;
  const days = f.days;
  const cells = Array.from({ length: 7 }, (_, i) =>
    days && i < days.preparation ? "prep" : days && i < days.preparation + days.sailing ? "sail" : "free",
  );
  const fwd = f.dial?.fairWeatherDays ?? [];
  return (
    <section class="panel fae-tracks" aria-label="Tracks">
      <div class="days" aria-label={`Days: ${days?.preparation ?? 0} Preparation, ${days?.sailing ?? 0} Sailing, ${days?.left ?? 7} left`}>
        <span class="track-name">Days</span>
        {cells.map((c, i) => (
          <span class={`day ${c}`} title={c === "prep" ? "Preparation" : c === "sail" ? "Sailing" : "left"}>
            {i + 1}
          </span>
        ))}
        <span class="muted">
          {" "}
          P{days?.preparation ?? 0} · S{days?.sailing ?? 0} · {days?.left ?? 7} left
        </span>
      </div>
      <div class="dial" aria-label="Wind Dial">
        <span class="track-name">Wind Dial</span>
        <svg viewBox="0 0 120 120" class="dial-svg" role="img" aria-label="Fair Weather Days per zone">
          <circle cx="60" cy="60" r="56" class="dial-face" />
          {[1, 2, 3, 4].map((zone) => {
            const [x, y] = zone === 1 ? [60, 30] : zone === 2 ? [92, 64] : zone === 3 ? [60, 98] : [28, 64];
            const cls = f.dial?.blue === zone ? "best" : f.dial?.red === zone ? "worst" : "";
            return (
              <g class={`dial-zone ${cls}`}>
                <circle cx={x} cy={y - 5} r="15" />
                <text x={x} y={y} class="dial-days">
                  {fwd[zone - 1] ?? "?"}
                </text>
                <text x={x} y={y + 20} class="dial-zone-name">
                  {ZONES[zone][0]}
                </text>
              </g>
            );
          })}
        </svg>
        <span class="muted">blue hole (best): {ZONES[f.dial?.blue ?? 0] ?? "?"} · red hole (worst): {ZONES[f.dial?.red ?? 0] ?? "?"}</span>
      </div>
      <div class="demand">
        <span class="track-name">Goods in Demand</span>
        <span class="good-chip" style={{ background: GOOD_COLOURS[f.demand] }} />
        <b>{GOODS[f.demand] ?? "?"}</b> (+2 VP)
        <span class="muted"> · supply {f.supply.map((n, i) => `${GOODS[i + 1]} ${n}`).join(", ")}</span>
      </div>
      <div class="misc muted">
        Age {AGES[f.age] ?? f.age} ({f.capacity} slots) · Runes: deck {f.runes?.deck ?? 0}, discards {f.runes?.discard.length ?? 0}
        {f.finalMarkers?.revealed
          ? ` · Final Rounds: ${f.finalMarkers.holder !== undefined ? seatOf(f.finalMarkers.holder).name : "?"} placed ${f.finalMarkers.placed}/3`
          : ""}
      </div>
      <Underway fae={f} />
    </section>
  );
}

function Underway(props: { fae: FireAndAxeView }) {
  const f = props.fae;
  const parts: string[] = [];
  if (f.attack) parts.push(`Raid under way: ${f.attack.rolls} roll(s)${f.attack.bonus ? `, +${f.attack.bonus} to the dice` : ""}`);
  else if (f.attackBonus) parts.push(`+${f.attackBonus} to the next attack's dice`);
  const losses = f.losses;
  if (losses?.pending) parts.push(`the weather: ${losses.pending} item(s) to lose now`);
  if (losses && losses.chart.some((n) => n)) parts.push(`on the Losses chart: ${losses.chart.map((n, i) => (n ? `${n} ${["tusk", "fish", "fur", "crew"][i]}` : "")).filter(Boolean).join(", ")}`);
  if (losses?.covered.length) parts.push(`skulls covered: ${losses.covered.join(", ")} (of ${losses.skulls.join(", ")})`);
  if (f.calm) parts.push("calm seas: the next Sail has no weather check");
  if (f.windowSeats.length) parts.push(`Rune window: ${f.windowSeats.map((s) => seatOf(s).name).join(", ")}`);
  if (!parts.length) return null;
  return <p class="underway">{parts.join(" · ")}</p>;
}

function SeatRows(props: { fae: FireAndAxeView; pack: FaePack; viewer?: number; awaiting: number[]; names: readonly string[] }) {
  const { fae, pack, viewer, awaiting, names } = props;
  return (
    <section class="panel fae-seats" aria-label="Seats">
      <h2>Seats</h2>
      <table>
        <thead>
          <tr>
            <th>Seat</th>
            <th>Ship</th>
            <th title="crew aboard">Crew</th>
            <th>Cargo</th>
            <th>VP</th>
            <th title="Rune cards in hand">Runes</th>
            <th title="towns taken (the Bloodiest Axe)">Towns</th>
            <th title="Settlements built">Settl.</th>
            <th title="Sagas completed, by Homeland">Sagas</th>
          </tr>
        </thead>
        <tbody>
          {fae.seats.map((s: FireAndAxeSeatView) => (
            <tr class={`${awaiting.includes(s.seat) ? "awaited" : ""}${viewer === s.seat ? " you" : ""}`} data-seat={s.seat}>
              <td>
                <SeatMark seat={s.seat} /> {who(s.seat, names)}
                {viewer === s.seat ? <span class="badge">you</span> : null}
                {fae.firstPlayer === s.seat ? <span class="badge" title="first player">1st</span> : null}
                {awaiting.includes(s.seat) ? <span class="badge wait">to play</span> : null}
                {s.out ? <span class="badge">out</span> : null}
              </td>
              <td>{s.location === undefined ? "Wintering Zone" : pack.place(s.location)}</td>
              <td>{s.crew}</td>
              <td class="cargo">
                {s.goods.map((n, g) =>
                  Array.from({ length: n }, () => <span class="good-chip" title={GOODS[g + 1]} style={{ background: GOOD_COLOURS[g + 1] }} />),
                )}
                {s.goods.every((n) => !n) ? <span class="muted">—</span> : null}
              </td>
              <td>
                <b>{s.vp}</b>
              </td>
              <td>{s.handCount}</td>
              <td title={s.towns.map((t) => `${pack.place(t.port)} (treasure ${t.treasure})`).join(", ")}>{s.towns.length}</td>
              <td>{s.settlements}</td>
              <td>
                {s.sagas.length
                  ? s.sagas.map((i) => {
                      const saga = pack.saga(i);
                      return <span class="saga-chip" title={saga?.name} style={{ background: HOMELAND_COLOURS[saga?.homeland ?? 0] ?? "#999" }} />;
                    })
                  : "—"}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

function Sagas(props: { fae: FireAndAxeView; pack: FaePack }) {
  const { fae, pack } = props;
  const ports = new Map(fae.ports.map((p) => [p.port, p]));
  const done = (type: FireAndAxeSagaType, port: number) => {
    const p = ports.get(port);
    if (!p) return false;
    if (type === FireAndAxeSagaType.TRADE) return p.goods !== 0;
    if (type === FireAndAxeSagaType.RAID) return p.town === FireAndAxeTownSize.UNSPECIFIED;
    return p.settler !== undefined;
  };
  return (
    <section class="panel fae-sagas" aria-label="Sagas">
      <h2>
        Sagas <small class="muted">deck {fae.sagas?.deck ?? 0} (I/II/III {fae.sagas?.deckByAge.join("/")}), {fae.sagas?.removed ?? 0} removed unseen</small>
      </h2>
      <div class="saga-cards">
        {(fae.sagas?.spaces ?? []).map((space) => {
          const saga = space.saga !== undefined ? pack.saga(space.saga) : undefined;
          if (!saga) return <div class="saga-card empty">empty space</div>;
          return (
            <div class="saga-card" style={{ borderColor: HOMELAND_COLOURS[saga.homeland] }} data-saga={saga.index}>
              <div class="saga-head">
                <span>Age {AGES[saga.age]}</span> · <b style={{ color: HOMELAND_COLOURS[saga.homeland] }}>{HOMELANDS[saga.homeland]}</b> · {SAGA_TYPES[saga.type]}
                {saga.bonusVp ? <span class="badge">+{saga.bonusVp} VP</span> : null}
              </div>
              <div class="saga-name">{saga.name}</div>
              <div class="saga-ports">
                {saga.ports.map((p) => (
                  <span class={done(saga.type, p) ? "done" : ""}>
                    {pack.place(p)}
                    {done(saga.type, p) ? " ✓" : ""}
                  </span>
                ))}
              </div>
            </div>
          );
        })}
      </div>
    </section>
  );
}

function Hand(props: { fae: FireAndAxeView; pack: FaePack; byRune: Map<number, number[]>; onRune: (rune: number) => void }) {
  const { fae, pack, byRune, onRune } = props;
  if (!fae.own) return null;
  return (
    <section class="panel fae-hand" aria-label="Your Runes">
      <h2>Your Runes</h2>
      {fae.own.hand.length === 0 ? <p class="muted">No Rune cards in hand.</p> : null}
      <div class="cards">
        {fae.own.hand.map((r) => {
          const card = pack.rune(r);
          const usable = byRune.has(r);
          return (
            <button class={`card rune${usable ? " usable" : ""}`} disabled={!usable} onClick={() => onRune(r)} data-rune={r}>
              <span class="card-name">
                {card?.name ?? pack.runeName(r)}
                {card?.conflict ? " ⚔" : ""}
              </span>
              <span class="card-stats">
                {card?.when === "any" ? "any time" : "own turn"} · {card?.where}
              </span>
              <span class="card-text">{card?.text}</span>
            </button>
          );
        })}
      </div>
    </section>
  );
}

function FaeResult(props: { result: GameResult; viewer?: number; names: readonly string[] }) {
  const { result, viewer, names } = props;
  const details = result.game.case === "fireAndAxe" ? result.game.value : undefined;
  const seats = [...result.seats].sort((a, b) => a.rank - b.rank || a.seat - b.seat);
  const mine = viewer === undefined ? undefined : result.seats.find((s) => s.seat === viewer);
  return (
    <section class="panel result" aria-label="Result">
      <h2>
        Game over <small class="muted">{details ? END_REASONS[details.endReason] : ""}</small>
      </h2>
      {mine ? <p class="verdict">{mine.winner ? "You won!" : `You finished #${mine.rank}.`}</p> : null}
      <table>
        <thead>
          <tr>
            <th>Rank</th>
            <th>Seat</th>
            <th>VP</th>
            <th>Towns</th>
            <th>Settlements</th>
            <th>Sagas (Denmark/Norway/Sweden)</th>
          </tr>
        </thead>
        <tbody>
          {seats.map((s) => {
            const t = details?.seats.find((x) => x.seat === s.seat);
            return (
              <tr class={s.winner ? "winner" : ""} data-seat={s.seat}>
                <td>{s.rank}</td>
                <td>
                  <SeatMark seat={s.seat} /> {who(s.seat, names)}
                  {s.winner ? <span class="badge">winner</span> : null}
                </td>
                <td>
                  <b>{String(s.score)}</b>
                </td>
                <td>{t?.towns ?? ""}</td>
                <td>{t?.settlements ?? ""}</td>
                <td>{t?.sagasByHomeland.join(" / ") ?? ""}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
      <p>
        <a href="#/">Back to the lobby</a>
      </p>
    </section>
  );
}

function FaeLog(props: { events: readonly Event[]; pack: FaePack; names: readonly string[] }) {
  const lines = props.events.slice(-150).map((e) => describeFaeEvent(e, props.pack, props.names)).reverse();
  return (
    <section class="panel log" aria-label="Event log">
      <h2>Events</h2>
      <ol class="events">
        {lines.map((line) => (
          <li class={`event event-${line.kind}`} data-seq={String(line.sequence)}>
            {line.seat !== undefined ? <SeatMark seat={line.seat} /> : <span class="clan-mark none" />}
            <span>{line.text}</span>
          </li>
        ))}
      </ol>
    </section>
  );
}

function FaeDecision(props: {
  view: View;
  fae: FireAndAxeView;
  only?: number[];
  onlyTitle?: string;
  onShowAll: () => void;
  onChoose: (index: number) => void;
  submitting: boolean;
  typed: string;
  names: readonly string[];
}) {
  const { view, fae, only, onlyTitle, onShowAll, onChoose, submitting, typed, names } = props;
  const me = view.viewerSeat;
  const deadline = view.decisionDeadlineUnixMs;
  if (!view.legalActions.length) {
    const waiting = view.awaitingSeats.filter((s) => s !== me).map((s) => who(s, names));
    return (
      <section class="panel decision waiting" aria-label="Decision">
        {waiting.length ? (
          <p>
            Waiting for {waiting.join(", ")}: {STEPS[fae.step] ?? ""}
          </p>
        ) : null}
        {deadline ? <TimeLeft deadlineMs={deadline} /> : null}
      </section>
    );
  }
  const shown = only ?? view.legalActions.map((_, i) => i);
  return (
    <section class="panel decision yours" aria-label="Decision">
      <h2>Your decision {deadline ? <TimeLeft deadlineMs={deadline} /> : null}</h2>
      <p class="prompt">{STEPS[fae.step] ?? ""}</p>
      {only ? (
        <p class="filter">
          {onlyTitle}{" "}
          <button class="link" onClick={onShowAll}>
            show all {view.legalActions.length}
          </button>
        </p>
      ) : null}
      <ol class="actions">
        {shown.map((index) => (
          <li>
            <button class="action" data-index={index} disabled={submitting} onClick={() => onChoose(index)}>
              <kbd>{index + 1}</kbd> {view.legalActions[index].label || `choice ${index + 1}`}
            </button>
          </li>
        ))}
      </ol>
      <p class="hint">
        Keys: type a number{view.legalActions.length > 9 ? " (then Enter)" : ""} to choose{typed ? ` — typed ${typed}` : ""}. Click a highlighted place to sail there, a Rune to play it.
      </p>
    </section>
  );
}

export interface FaeGameScreenProps {
  state: SessionState;
  catalog?: FireAndAxeCatalog;
  onChoose: (index: number) => void;
}

export function FaeGameScreen(props: FaeGameScreenProps) {
  const { state, catalog, onChoose } = props;
  const view = state.view;
  const [selection, setSelection] = useState<Selection>(undefined);
  const version = view?.stateVersion;
  useEffect(() => setSelection(undefined), [version]);
  const actions = view?.legalActions ?? [];
  const byPlace = useMemo(() => (view ? actionsByPlace(view) : new Map<number, number[]>()), [view]);
  const byRune = useMemo(() => (view ? actionsByRune(view) : new Map<number, number[]>()), [view]);
  const choose = (index: number) => {
    setSelection(undefined);
    onChoose(index);
  };

  // Keyboard: the number of an action chooses it (several digits: Enter, or a pause).
  const typed = useNumberKeys(actions, onChoose, () => setSelection(undefined));

  if (state.error) {
    return (
      <main class="game">
        <p class="error">{state.error}</p>
        <p>
          <a href="#/">Back to the lobby</a>
        </p>
      </main>
    );
  }
  if (!view) return <main class="game"><p class="muted">Loading the game…</p></main>;
  if (view.game.case !== "fireAndAxe") return <main class="game"><p class="error">This page cannot show this kind of game.</p></main>;
  const fae = view.game.value;
  const pack = FaePack.of(catalog, fae.pack?.digest ?? "");
  const me = view.viewerSeat;
  const names = view.seats.map((s) => s.name);
  const finished = view.status === GameStatus.FINISHED;
  const pick = (indexes: number[] | undefined, sel: Selection) => {
    if (!indexes?.length) return;
    if (indexes.length === 1) choose(indexes[0]);
    else setSelection(sel);
  };
  const only = selection && "place" in selection ? byPlace.get(selection.place) : selection && "rune" in selection ? byRune.get(selection.rune) : undefined;
  const onlyTitle =
    selection && "place" in selection
      ? `Choices for ${pack.place(selection.place)}:`
      : selection && "rune" in selection
        ? `Choices for ${pack.runeName(selection.rune)}:`
        : undefined;
  const mine = me !== undefined ? fae.seats.find((s) => s.seat === me) : undefined;
  return (
    <main class={`game fae${me === undefined ? " spectating" : ""}`} data-game="fire_and_axe" data-status={GameStatus[view.status]} data-version={String(view.stateVersion)}>
      <header class="game-head">
        <a href="#/" class="home">
          ← Lobby
        </a>
        <span class="game-id">Fire &amp; Axe · game {view.gameId}</span>
        {view.status === GameStatus.IN_PROGRESS ? (
          <span class="phase">
            Age {AGES[fae.age] ?? fae.age} · turn {fae.turns} · {seatOf(fae.turnSeat).name}'s turn
          </span>
        ) : (
          <span class="phase">The game is {GameStatus[view.status].toLowerCase().replace("_", " ")}</span>
        )}
        <span class="viewer">
          {me === undefined ? (
            "Spectating"
          ) : (
            <>
              You play <SeatMark seat={me} /> {seatOf(me).name}
              {mine ? <span class="you-numbers"> · {mine.vp} VP · crew {mine.crew}</span> : null}
            </>
          )}
        </span>
        <span class={`connection ${state.connection}`}>{state.connection === "live" ? "● live" : state.connection}</span>
      </header>
      <DemoBanner fae={fae} />
      {state.notice ? <p class="notice" role="status">{state.notice}</p> : null}
      {finished && view.result ? <FaeResult result={view.result} viewer={me} names={names} /> : null}
      {view.status === GameStatus.OPEN ? (
        <p class="notice">
          Waiting for players: {view.seats.filter((s) => !s.claimed).map((s) => seatOf(s.seat).name).join(", ")} still free.
        </p>
      ) : null}
      <div class="game-main">
        <div class="col-board">
          <FaeBoard view={fae} pack={pack} targets={byPlace} selected={selection && "place" in selection ? selection.place : undefined} onPlace={(p) => pick(byPlace.get(p), { place: p })} />
          <Tracks fae={fae} />
        </div>
        <div class="col-side">
          {view.status === GameStatus.IN_PROGRESS ? (
            <FaeDecision
              view={view}
              fae={fae}
              only={only}
              onlyTitle={onlyTitle}
              onShowAll={() => setSelection(undefined)}
              onChoose={me !== undefined ? choose : () => {}}
              submitting={state.submitting}
              typed={typed}
              names={names}
            />
          ) : null}
          {me !== undefined && !finished ? <Hand fae={fae} pack={pack} byRune={byRune} onRune={(r) => pick(byRune.get(r), { rune: r })} /> : null}
          <Sagas fae={fae} pack={pack} />
          <SeatRows fae={fae} pack={pack} viewer={me} awaiting={view.awaitingSeats} names={names} />
        </div>
      </div>
      <FaeLog events={state.log} pack={pack} names={names} />
    </main>
  );
}

export function FaeGamePage(props: { client: GameClient; tokens: SeatTokens; gameId: string; spectate: boolean }) {
  const { client, tokens, gameId, spectate } = props;
  const cache = useMemo(() => new FaeCatalogCache(client), [client]);
  const [catalog, setCatalog] = useState<FireAndAxeCatalog>();
  const [failure, setFailure] = useState<string>();
  const [session, setSession] = useState<GameSession>();
  const [state, setState] = useState<SessionState>();

  useEffect(() => {
    let live = true;
    cache
      .get()
      .then((data) => live && setCatalog(data))
      .catch((e: unknown) => live && setFailure(`Could not load the data packs: ${String(e)}`));
    return () => {
      live = false;
    };
  }, [cache]);

  useEffect(() => {
    const record = spectate ? undefined : tokens.get(gameId);
    const s = new GameSession(client, gameId, record?.token, tokens);
    setSession(s);
    setState(s.state);
    const unsubscribe = s.subscribe(() => setState(s.state));
    void s.run();
    return () => {
      unsubscribe();
      s.stop();
    };
  }, [client, gameId, spectate, tokens]);

  if (failure) return <main class="game"><p class="error">{failure}</p></main>;
  if (!catalog || !state || !session) return <main class="game"><p class="muted">Loading the game…</p></main>;
  return <FaeGameScreen state={state} catalog={catalog} onChoose={(i) => void session.choose(i)} />;
}
