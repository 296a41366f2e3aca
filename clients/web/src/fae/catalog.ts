// Fire & Axe's static data (GetCatalog kind FIRE_AND_AXE): the boards and cards of every data
// pack the server offers or hosts a game on. Views, actions and events name places, Runes and
// Sagas by their index in the game's pack; FaePack reads them back.
import type { GameClient } from "../api.js";
import type {
  FireAndAxeCatalog,
  FireAndAxeLocation,
  FireAndAxePack,
  FireAndAxeRune,
  FireAndAxeSaga,
} from "../gen/yggdrasil/v1/fire_and_axe_pb.js";
import { GameKind } from "../gen/yggdrasil/v1/game_pb.js";

export class FaeCatalogCache {
  private pending: Promise<FireAndAxeCatalog> | undefined;

  constructor(private readonly client: GameClient) {}

  get(): Promise<FireAndAxeCatalog> {
    if (!this.pending) {
      this.pending = this.client.getCatalog({ kind: GameKind.FIRE_AND_AXE }).then((reply) => {
        if (reply.game.case !== "fireAndAxe") throw new Error("the server sent no Fire & Axe catalog");
        return reply.game.value;
      });
      this.pending.catch(() => (this.pending = undefined));
    }
    return this.pending;
  }

  /** Forget the packs (a game on a pack the page has not seen yet). */
  reset(): void {
    this.pending = undefined;
  }
}

/** One pack's names; ``#n`` when the pack (or the entry) is unknown. */
export class FaePack {
  constructor(readonly pack: FireAndAxePack | undefined) {}

  static of(catalog: FireAndAxeCatalog | undefined, digest: string): FaePack {
    return new FaePack(catalog?.packs.find((p) => p.info?.digest === digest));
  }

  location(index: number): FireAndAxeLocation | undefined {
    return this.pack?.locations[index];
  }

  place(index: number): string {
    return this.location(index)?.name ?? `place #${index}`;
  }

  rune(index: number): FireAndAxeRune | undefined {
    return this.pack?.runes[index];
  }

  runeName(index: number): string {
    return this.rune(index)?.name ?? `Rune #${index}`;
  }

  saga(index: number): FireAndAxeSaga | undefined {
    return this.pack?.sagas[index];
  }

  sagaName(index: number): string {
    return this.saga(index)?.name ?? `Saga #${index}`;
  }
}
