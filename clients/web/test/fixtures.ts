// Recorded API messages (scripts/record_web_fixtures.py) parsed with the generated schemas.
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { fromJson, type JsonValue } from "@bufbuild/protobuf";
import { render } from "preact";
import { afterEach, beforeEach } from "vitest";
import { Catalog } from "../src/catalog.js";
import type { Event, View } from "../src/gen/yggdrasil/v1/game_pb.js";
import { EventSchema, ViewSchema } from "../src/gen/yggdrasil/v1/game_pb.js";
import { GetCatalogResponseSchema } from "../src/gen/yggdrasil/v1/game_service_pb.js";
import type { SessionState } from "../src/session.js";

function json(name: string): JsonValue {
  return JSON.parse(readFileSync(resolve(__dirname, "fixtures", `${name}.json`), "utf8")) as JsonValue;
}

export function view(name: string): View {
  return fromJson(ViewSchema, json(name));
}

export function events(): Event[] {
  return (json("events") as JsonValue[]).map((e) => fromJson(EventSchema, e));
}

export function catalog(): Catalog {
  const reply = fromJson(GetCatalogResponseSchema, json("catalog"));
  if (reply.game.case !== "bloodRage") throw new Error("no catalog");
  return new Catalog(reply.game.value);
}

export function state(v: View, extra: Partial<SessionState> = {}): SessionState {
  return { view: v, log: [], connection: "live", submitting: false, ...extra };
}

export function br(v: View) {
  if (v.game.case !== "bloodRage") throw new Error("not a Blood Rage view");
  return v.game.value;
}

/** A fresh element in the document for each test, emptied afterwards: ``root()``. */
export function useRoot(): () => HTMLElement {
  let root: HTMLElement;
  beforeEach(() => {
    root = document.createElement("div");
    document.body.appendChild(root);
  });
  afterEach(() => {
    render(null, root);
    root.remove();
  });
  return () => root;
}
