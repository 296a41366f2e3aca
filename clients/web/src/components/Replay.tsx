// The replay viewer of a finished game: every decision in turn, with the board as it was.
// The steps come from WatchGame as a spectator from the first event with a view after each
// group of events (the API's promise: a view exactly as the game was after that group), so the
// page replays nothing itself. Step with the buttons, the slider or the arrow keys; Space plays.
import { useEffect, useMemo, useState } from "preact/hooks";
import type { CatalogCache, GameClient } from "../api.js";
import { GAME_ID_HEADER } from "../api.js";
import { Catalog } from "../catalog.js";
import { describeEvent } from "../events.js";
import type { Event, View } from "../gen/yggdrasil/v1/game_pb.js";
import { GameStatus } from "../gen/yggdrasil/v1/game_pb.js";
import type { Area } from "../gen/yggdrasil/v1/blood_rage_pb.js";
import { lastMove } from "../lastMove.js";
import { phaseName } from "../names.js";
import { foldBattle } from "../session.js";
import { Board } from "./Board.js";
import { BattlePanel, ClanMark, ClanPanels } from "./Panels.js";
import { ResultScreen } from "./Result.js";
import { AgeTrack, GloryTrack, Valhalla } from "./Tracks.js";

/** One step of a replay: the events of one decision (or claim) and the view after them. */
export interface ReplayStep {
  view: View;
  events: Event[];
}

/** The steps of a finished game, read from WatchGame (the first: the view before any event). */
export async function loadReplay(client: GameClient, gameId: string, signal?: AbortSignal): Promise<ReplayStep[]> {
  const steps: ReplayStep[] = [];
  let pending: Event[] = [];
  const stream = client.watchGame(
    { gameId, viewer: { case: "spectator", value: {} }, fromSequence: 1n, includeViews: true },
    { signal, headers: { [GAME_ID_HEADER]: gameId } },
  );
  for await (const message of stream) {
    if (message.event) pending.push(message.event);
    if (message.view) {
      steps.push({ view: message.view, events: pending });
      pending = [];
    }
  }
  return steps;
}

const EMPTY: Map<Area, number[]> = new Map();

/** A button's picture in SVG (media-control glyphs are missing from common fonts). */
function Icon(props: { d: string }) {
  return (
    <svg class="icon" viewBox="0 0 16 16" width="14" height="14" aria-hidden="true">
      <path d={props.d} fill="currentColor" stroke="currentColor" stroke-width="2" stroke-linejoin="round" />
    </svg>
  );
}

export function ReplayViewer(props: { steps: ReplayStep[]; catalog: Catalog; start?: number }) {
  const { steps, catalog } = props;
  const [index, setIndex] = useState(props.start ?? 0);
  const [playing, setPlaying] = useState(false);
  const last = steps.length - 1;
  const go = (i: number) => setIndex(Math.max(0, Math.min(last, i)));

  useEffect(() => {
    if (!playing) return;
    if (index >= last) {
      setPlaying(false);
      return;
    }
    const timer = setTimeout(() => setIndex((i) => Math.min(last, i + 1)), 650);
    return () => clearTimeout(timer);
  }, [playing, index, last]);

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const target = e.target as HTMLElement | null;
      if (target && /^(INPUT|SELECT|TEXTAREA)$/.test(target.tagName) && target.getAttribute("type") !== "range") return;
      if (e.key === "ArrowRight") setIndex((i) => Math.min(last, i + 1));
      else if (e.key === "ArrowLeft") setIndex((i) => Math.max(0, i - 1));
      else if (e.key === "Home") setIndex(0);
      else if (e.key === "End") setIndex(last);
      else if (e.key === " ") setPlaying((p) => !p);
      else return;
      e.preventDefault();
    };
    document.addEventListener("keydown", onKey);
    return () => document.removeEventListener("keydown", onKey);
  }, [last]);

  const step = steps[index];
  const view = step.view;
  const names = view.seats.map((s) => s.name);
  // The last battle as of this step, gathered from the events up to it.
  const battle = useMemo(() => {
    let outcome = undefined as ReturnType<typeof foldBattle>;
    for (const s of steps.slice(0, index + 1)) for (const e of s.events) outcome = foldBattle(outcome, e);
    return outcome;
  }, [steps, index]);
  if (view.game.case !== "bloodRage") return <p class="error">This page cannot show this kind of game.</p>;
  const br = view.game.value;
  const moved = lastMove(step.events);
  const decider = moved?.seat;
  return (
    <div class="replay" data-step={index} data-steps={steps.length}>
      <section class="panel replay-controls" aria-label="Replay controls">
        <div class="replay-buttons">
          <button class="secondary" onClick={() => go(0)} aria-label="first step" disabled={index === 0}>
            <Icon d="M4 3 V13 M13 3 L6 8 L13 13 Z" />
          </button>
          <button class="secondary" onClick={() => go(index - 1)} aria-label="step back" disabled={index === 0}>
            <Icon d="M12 3 L5 8 L12 13 Z" />
          </button>
          <button class="play" onClick={() => setPlaying(!playing)} aria-label={playing ? "pause" : "play"}>
            {playing ? <Icon d="M5 3 V13 M11 3 V13" /> : <Icon d="M5 3 L12 8 L5 13 Z" />} {playing ? "pause" : "play"}
          </button>
          <button class="secondary" onClick={() => go(index + 1)} aria-label="step forward" disabled={index === last}>
            <Icon d="M4 3 L11 8 L4 13 Z" />
          </button>
          <button class="secondary" onClick={() => go(last)} aria-label="last step" disabled={index === last}>
            <Icon d="M12 3 V13 M3 3 L10 8 L3 13 Z" />
          </button>
          <span class="replay-where">
            Step {index} of {last} · Age {br.age} · {phaseName(br.phase)}
            {decider !== undefined ? (
              <>
                {" "}
                · <ClanMark seat={decider} />
              </>
            ) : null}
          </span>
        </div>
        <input
          type="range"
          class="replay-slider"
          min="0"
          max={String(last)}
          value={String(index)}
          aria-label="replay position"
          onInput={(e) => go(Number((e.target as HTMLInputElement).value))}
        />
        <p class="hint">Keys: ← → step, Home/End, Space plays.</p>
      </section>
      <div class="game-main">
        <div class="col-board">
          <Board view={br} areas={catalog.areas} targets={EMPTY} highlight={moved?.areas} />
          <Valhalla view={br} />
        </div>
        <div class="col-side">
          <section class="panel replay-events" aria-label="This step's events">
            <h2>This step</h2>
            <ol class="events">
              {step.events.length ? (
                step.events.map((e) => {
                  const line = describeEvent(e, catalog, names);
                  return (
                    <li class={`event event-${line.kind}`} data-seq={String(line.sequence)}>
                      {line.seat !== undefined ? <ClanMark seat={line.seat} /> : <span class="clan-mark none" />}
                      <span>{line.text}</span>
                    </li>
                  );
                })
              ) : (
                <li class="muted">The game before its first event.</li>
              )}
            </ol>
          </section>
          {index === last && view.status === GameStatus.FINISHED && view.result ? <ResultScreen result={view.result} /> : null}
          <GloryTrack view={br} />
          <AgeTrack view={br} />
          <BattlePanel battle={br.battle} step={br.step} outcome={battle} catalog={catalog} />
          <ClanPanels view={br} awaiting={view.awaitingSeats} committed={view.committedSeats} />
        </div>
      </div>
    </div>
  );
}

export function ReplayPage(props: { client: GameClient; catalogs: CatalogCache; gameId: string }) {
  const { client, catalogs, gameId } = props;
  const [catalog, setCatalog] = useState<Catalog>();
  const [steps, setSteps] = useState<ReplayStep[]>();
  const [problem, setProblem] = useState<string>();

  useEffect(() => {
    const abort = new AbortController();
    let live = true;
    (async () => {
      try {
        const data = await catalogs.get();
        if (live) setCatalog(new Catalog(data));
        const now = await client.getView({ gameId, viewer: { case: "spectator", value: {} } });
        if (now.view?.status !== GameStatus.FINISHED) {
          if (live) setProblem("Only a finished game has a replay: this one is not over.");
          return;
        }
        const loaded = await loadReplay(client, gameId, abort.signal);
        if (live) setSteps(loaded);
      } catch (e) {
        if (live) setProblem(`Could not load the replay: ${String(e)}`);
      }
    })();
    return () => {
      live = false;
      abort.abort();
    };
  }, [client, catalogs, gameId]);

  return (
    <main class="game replay-page">
      <header class="game-head">
        <a href="#/" class="home">
          ← Lobby
        </a>
        <span class="game-id">Replay of game {gameId}</span>
        <a href={`#/watch/${gameId}`}>The game's page</a>
      </header>
      {problem ? <p class="notice">{problem}</p> : null}
      {!problem && (!steps || !catalog) ? <p class="muted">Loading the replay…</p> : null}
      {steps && catalog && steps.length ? <ReplayViewer steps={steps} catalog={catalog} /> : null}
    </main>
  );
}
