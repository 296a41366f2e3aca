// Cards as tiles with their catalog data (name, kind, strength/cost/Glory, rules text). A
// card that a legal action names is a button: clicking it chooses that action, or shows the
// choices when there are several (e.g. an upgrade card with two free slots).
import type { BloodRageCardInfo, BloodRageSeatPrivate, Card } from "../gen/yggdrasil/v1/blood_rage_pb.js";
import { CardType } from "../gen/yggdrasil/v1/blood_rage_pb.js";
import type { Catalog } from "../catalog.js";
import { cardTypeName, slotName } from "../names.js";

function stats(info: BloodRageCardInfo): string {
  switch (info.type) {
    case CardType.BATTLE:
      return `+${info.strength} STR`;
    case CardType.UPGRADE:
      return `${slotName(info.slot)} upgrade · cost ${info.cost}${info.monster ? ` · STR ${info.strength}` : ""}`;
    case CardType.QUEST:
      return `quest · ${info.questGlory} Glory`;
    default:
      return "";
  }
}

export function CardTile(props: {
  card: Card;
  catalog: Catalog;
  actions?: number[];
  onChoose?: (instance: number) => void;
  note?: string;
}) {
  const { card, catalog, actions, onChoose, note } = props;
  const info = catalog.card(card.cardId);
  const type = info ? cardTypeName(info.type) : "card";
  const body = (
    <>
      <span class="card-name">{info?.name ?? card.cardId}</span>
      <span class="card-stats">
        {info ? stats(info) : ""} · Age {info?.age ?? "?"}
      </span>
      <span class="card-text">{info?.text ?? ""}</span>
      {note ? <span class="card-note">{note}</span> : null}
    </>
  );
  const classes = `card card-${type}${actions?.length ? " playable" : ""}`;
  if (actions?.length && onChoose) {
    return (
      <button class={classes} data-card={card.cardId} onClick={() => onChoose(card.instance)}>
        {body}
      </button>
    );
  }
  return (
    <div class={classes} data-card={card.cardId}>
      {body}
    </div>
  );
}

function Row(props: {
  title: string;
  cards: readonly Card[];
  catalog: Catalog;
  byCard: Map<number, number[]>;
  onCard: (instance: number) => void;
  hint?: string;
}) {
  if (!props.cards.length) return null;
  return (
    <section class="card-row">
      <h3>
        {props.title} {props.hint ? <small>{props.hint}</small> : null}
      </h3>
      <div class="cards">
        {props.cards.map((card) => (
          <CardTile card={card} catalog={props.catalog} actions={props.byCard.get(card.instance)} onChoose={props.onCard} />
        ))}
      </div>
    </section>
  );
}

/** The viewing seat's own cards: pack, picks, hand, quests, chosen battle card, kept card. */
export function OwnCards(props: {
  own: BloodRageSeatPrivate;
  catalog: Catalog;
  byCard: Map<number, number[]>;
  onCard: (instance: number) => void;
}) {
  const { own, catalog, byCard, onCard } = props;
  const kept = own.keptCard?.instance;
  return (
    <div class="own-cards" aria-label="Your cards">
      <Row title="Your pack" hint="(click a card to pick it)" cards={own.draftPack} catalog={catalog} byCard={byCard} onCard={onCard} />
      <Row title="Picked this round" cards={own.pendingPicks} catalog={catalog} byCard={byCard} onCard={onCard} />
      <Row
        title="Your hand"
        hint={kept !== undefined ? `(${catalog.cardName(own.keptCard!.cardId)} was kept from the last Age)` : undefined}
        cards={own.hand}
        catalog={catalog}
        byCard={byCard}
        onCard={onCard}
      />
      <Row title="Quests committed" cards={own.committedQuests} catalog={catalog} byCard={byCard} onCard={onCard} />
      {own.battleCard ? (
        <Row title="Your battle card" cards={[own.battleCard]} catalog={catalog} byCard={byCard} onCard={onCard} />
      ) : null}
      {!own.draftPack.length && !own.hand.length && !own.pendingPicks.length ? <p class="muted">No cards in hand.</p> : null}
    </div>
  );
}
