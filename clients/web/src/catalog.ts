// Lookups into the catalog (GetCatalog): card data by card id, area data by area.
import type { AreaInfo, BloodRageCardInfo, BloodRageCatalog } from "./gen/yggdrasil/v1/blood_rage_pb.js";
import { Area } from "./gen/yggdrasil/v1/blood_rage_pb.js";

export class Catalog {
  readonly cards: Map<string, BloodRageCardInfo>;
  readonly areas: AreaInfo[];

  constructor(readonly data: BloodRageCatalog) {
    this.cards = new Map(data.cards.map((c) => [c.cardId, c]));
    this.areas = data.areas;
  }

  card(cardId: string): BloodRageCardInfo | undefined {
    return this.cards.get(cardId);
  }

  /** The card's printed name, or its id when the catalog does not know it. */
  cardName(cardId: string): string {
    return this.cards.get(cardId)?.name ?? cardId;
  }

  /** The name of the card whose key (name without Age) is ``key``. */
  nameOfKey(key: string): string {
    for (const card of this.data.cards) if (card.key === key) return card.name;
    return key.replace(/_/g, " ");
  }

  area(area: Area): AreaInfo | undefined {
    return this.areas.find((a) => a.area === area);
  }
}
