// The game page: GameScreen draws one session state (board, decision, cards, battle, clans,
// log, result); GamePage connects it to a live GameSession and the keyboard.
import { useEffect, useMemo, useState } from "preact/hooks";
import type { GameClient } from "../api.js";
import type { CatalogCache } from "../api.js";
import { Catalog } from "../catalog.js";
import { actionsByArea, actionsByCard } from "../actions.js";
import { Area } from "../gen/yggdrasil/v1/blood_rage_pb.js";
import { GameStatus } from "../gen/yggdrasil/v1/game_pb.js";
import { areaName, clanOf, phaseName, statusName, stepName } from "../names.js";
import { GameSession, type SessionState } from "../session.js";
import type { SeatTokens } from "../tokens.js";
import { Board } from "./Board.js";
import { OwnCards } from "./Cards.js";
import { Decision } from "./Decision.js";
import { BattlePanel, ClanMark, ClanPanels, EventLog } from "./Panels.js";
import { ResultScreen } from "./Result.js";
import { AgeTrack, GloryTrack, Valhalla } from "./Tracks.js";
import { describeEvent } from "../events.js";
import { lastGroup, lastMove } from "../lastMove.js";
import { useNumberKeys } from "../numberKeys.js";

type Selection = { area: Area } | { card: number } | undefined;

export interface GameScreenProps {
  state: SessionState;
  catalog: Catalog;
  onChoose: (index: number) => void;
}

export function GameScreen(props: GameScreenProps) {
  const { state, catalog, onChoose } = props;
  const view = state.view;
  const [selection, setSelection] = useState<Selection>(undefined);
  const version = view?.stateVersion;
  useEffect(() => setSelection(undefined), [version]);

  const actions = view?.legalActions ?? [];
  const byArea = useMemo(() => actionsByArea(actions), [actions]);
  const byCard = useMemo(() => actionsByCard(actions), [actions]);

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
  if (view.game.case !== "bloodRage") return <main class="game"><p class="error">This page cannot show this kind of game.</p></main>;
  const br = view.game.value;
  const me = view.viewerSeat;
  const names = view.seats.map((s) => s.name);
  const group = lastGroup(state.log);
  const moved = lastMove(group);
  const decided = group.find((e) => e.payload.case === "bloodRage" && e.payload.value.kind.case === "actionApplied");
  const moveText = decided ? describeEvent(decided, catalog, names).text : "";

  const pick = (indexes: number[] | undefined, sel: Selection) => {
    if (!indexes?.length) return;
    if (indexes.length === 1) choose(indexes[0]);
    else setSelection(sel);
  };
  const only =
    selection && "area" in selection
      ? byArea.get(selection.area)
      : selection && "card" in selection
        ? byCard.get(selection.card)
        : undefined;
  const onlyTitle =
    selection && "area" in selection
      ? `Choices in ${areaName(selection.area)}:`
      : selection && "card" in selection
        ? "Choices for this card:"
        : undefined;

  const finished = view.status === GameStatus.FINISHED;
  return (
    <main class={`game${me === undefined ? " spectating" : ""}`} data-status={GameStatus[view.status]} data-version={String(view.stateVersion)}>
      <header class="game-head">
        <a href="#/" class="home">
          ← Lobby
        </a>
        <span class="game-id">Game {view.gameId}</span>
        {view.status === GameStatus.IN_PROGRESS ? (
          <span class="phase">
            Age {br.age} · {phaseName(br.phase)}
            {stepName(br.step) ? ` · ${stepName(br.step)}` : ""}
            {br.draftRound ? ` · round ${br.draftRound}` : ""}
          </span>
        ) : (
          <span class="phase">The game is {statusName(view.status)}</span>
        )}
        <span class="viewer">
          {me === undefined ? (
            "Spectating"
          ) : (
            <>
              You play <ClanMark seat={me} /> {clanOf(me).name}
              {br.clans[me] ? (
                <span class="you-numbers">
                  {" "}
                  · Rage {br.clans[me].rage} · Glory {br.clans[me].glory}
                </span>
              ) : null}
            </>
          )}
        </span>
        <span class={`connection ${state.connection}`}>{state.connection === "live" ? "● live" : state.connection}</span>
      </header>
      {state.notice ? <p class="notice" role="status">{state.notice}</p> : null}
      {finished && view.result ? <ResultScreen result={view.result} viewer={me} gameId={view.gameId} /> : null}
      {view.status === GameStatus.OPEN ? (
        <p class="notice">
          Waiting for players: {view.seats.filter((s) => !s.claimed).map((s) => clanOf(s.seat).name).join(", ")} still free.
        </p>
      ) : null}
      <div class="game-main">
        <div class="col-board">
          <Board
            view={br}
            areas={catalog.areas}
            targets={byArea}
            selected={selection && "area" in selection ? selection.area : undefined}
            onArea={(area) => pick(byArea.get(area), { area })}
            highlight={moved?.areas}
          />
          {moved?.seat !== undefined ? (
            <p class="last-move-note">
              <ClanMark seat={moved.seat} /> last move outlined: {moveText}
            </p>
          ) : null}
          <Valhalla view={br} />
        </div>
        <div class="col-side">
          {view.status === GameStatus.IN_PROGRESS && me !== undefined ? (
            <Decision
              view={view}
              catalog={catalog}
              only={only}
              onlyTitle={onlyTitle}
              onShowAll={() => setSelection(undefined)}
              onChoose={choose}
              submitting={state.submitting}
              typed={typed}
            />
          ) : view.status === GameStatus.IN_PROGRESS ? (
            <Decision view={view} catalog={catalog} onShowAll={() => {}} onChoose={() => {}} submitting={false} typed="" />
          ) : null}
          {me !== undefined && br.own && !finished ? (
            <OwnCards own={br.own} catalog={catalog} byCard={byCard} onCard={(card) => pick(byCard.get(card), { card })} />
          ) : null}
          <BattlePanel battle={br.battle} step={br.step} outcome={state.lastBattle} catalog={catalog} />
          <GloryTrack view={br} />
          <AgeTrack view={br} />
          <ClanPanels view={br} viewer={me} awaiting={view.awaitingSeats} committed={view.committedSeats} />
        </div>
      </div>
      <EventLog events={state.log} catalog={catalog} names={names} />
    </main>
  );
}

export function GamePage(props: {
  client: GameClient;
  catalogs: CatalogCache;
  tokens: SeatTokens;
  gameId: string;
  spectate: boolean;
}) {
  const { client, catalogs, tokens, gameId, spectate } = props;
  const [catalog, setCatalog] = useState<Catalog>();
  const [failure, setFailure] = useState<string>();
  const [session, setSession] = useState<GameSession>();
  const [state, setState] = useState<SessionState>();

  useEffect(() => {
    let live = true;
    catalogs
      .get()
      .then((data) => live && setCatalog(new Catalog(data)))
      .catch((e: unknown) => live && setFailure(`Could not load the card catalog: ${String(e)}`));
    return () => {
      live = false;
    };
  }, [catalogs]);

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
  return <GameScreen state={state} catalog={catalog} onChoose={(i) => void session.choose(i)} />;
}
