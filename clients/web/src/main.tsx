import { render } from "preact";
import { apiBaseUrl, createGameClient } from "./api.js";
import { App } from "./components/App.js";
import "./styles.css";

render(<App client={createGameClient(apiBaseUrl())} />, document.getElementById("app")!);
