// Fire & Axe's part of the lobby's "New game" form: the data pack (the server's packs from
// GetCatalog; the demo pack said plainly to be invented, not the published game) and the
// options of the rules' forks (A2, A8) and the no-conflict variant (F14.1).
import { useEffect, useMemo, useState } from "preact/hooks";
import type { GameClient } from "../api.js";
import type { MessageInitShape } from "@bufbuild/protobuf";
import type { FireAndAxeCatalog } from "../gen/yggdrasil/v1/fire_and_axe_pb.js";
import {
  FireAndAxeOptionsSchema,
  FireAndAxeRuneTiming,
  FireAndAxeSettleBlock,
} from "../gen/yggdrasil/v1/fire_and_axe_pb.js";
import { FaeCatalogCache } from "./catalog.js";

export interface FaeChoices {
  pack: string;
  anyTime: boolean;
  settleAny: boolean;
  noConflict: boolean;
}

export const DEFAULT_CHOICES: FaeChoices = { pack: "", anyTime: false, settleAny: false, noConflict: false };

/** The CreateGame payload of these choices (an empty pack: the server's default). */
export function faeOptions(choices: FaeChoices): MessageInitShape<typeof FireAndAxeOptionsSchema> {
  return {
    dataPack: choices.pack,
    runeTiming: choices.anyTime ? FireAndAxeRuneTiming.ANY_TIME : FireAndAxeRuneTiming.OWN_TURN,
    settleRegionBlock: choices.settleAny ? FireAndAxeSettleBlock.ANY : FireAndAxeSettleBlock.ALL,
    noConflict: choices.noConflict,
  };
}

export function FaeCreateOptions(props: { client: GameClient; value: FaeChoices; onChange: (next: FaeChoices) => void }) {
  const { client, value, onChange } = props;
  const cache = useMemo(() => new FaeCatalogCache(client), [client]);
  const [catalog, setCatalog] = useState<FireAndAxeCatalog>();
  useEffect(() => {
    let live = true;
    cache.get().then((c) => live && setCatalog(c)).catch(() => undefined);
    return () => {
      live = false;
    };
  }, [cache]);
  const packs = catalog?.packs ?? [];
  const chosen = packs.find((p) => p.info?.digest === (value.pack || catalog?.defaultPack));
  const set = (patch: Partial<FaeChoices>) => onChange({ ...value, ...patch });
  return (
    <fieldset class="fae-options">
      <legend>Fire &amp; Axe</legend>
      <label>
        Board and cards
        <select name="pack" value={value.pack} onChange={(e) => set({ pack: e.currentTarget.value })}>
          <option value="">the server's default</option>
          {packs.map((p) => (
            <option value={p.info?.digest}>
              {p.info?.name}
              {p.info?.demo ? " (demo: invented)" : ""}
            </option>
          ))}
        </select>
      </label>
      {chosen?.info?.demo || (!chosen && !catalog) ? (
        <p class="hint demo-hint">
          The demo pack keeps every value the rulebook gives and invents the rest of the map and cards: it is <b>not the published game</b>.
        </p>
      ) : null}
      <label>
        <input type="checkbox" name="anytime" checked={value.anyTime} onChange={(e) => set({ anyTime: e.currentTarget.checked })} /> Runes also in
        others' turns (A8)
      </label>
      <label>
        <input type="checkbox" name="settleany" checked={value.settleAny} onChange={(e) => set({ settleAny: e.currentTarget.checked })} /> Settle
        blocked by <i>any</i> town of the region (A2)
      </label>
      <label>
        <input type="checkbox" name="noconflict" checked={value.noConflict} onChange={(e) => set({ noConflict: e.currentTarget.checked })} /> no
        conflict Runes (F14.1)
      </label>
    </fieldset>
  );
}
