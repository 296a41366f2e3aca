import { useEffect, useRef, useState } from "preact/hooks";

/**
 * Typing the number of a legal action chooses it, as in the terminal: one digit at once when
 * no further digit could make a choice, several with Enter or after a pause; Escape forgets
 * what was typed. Every game's screen takes its keys from here, so they behave alike.
 * Returns the digits typed so far, for the screen to show.
 */
export function useNumberKeys(
  actions: readonly unknown[],
  onChoose: (index: number) => void,
  onClear: () => void,
): string {
  const [typed, setTyped] = useState("");
  const typedRef = useRef({ text: "", timer: 0 as ReturnType<typeof setTimeout> | 0 });
  // Subscribed again only when the actions or the chooser change: a re-render for the typed
  // digits must not clear the pause's timer.
  useEffect(() => {
    const count = actions.length;
    const flush = () => {
      const n = Number.parseInt(typedRef.current.text, 10);
      typedRef.current.text = "";
      setTyped("");
      if (n >= 1 && n <= count) {
        onClear();
        onChoose(n - 1);
      }
    };
    const onKey = (e: KeyboardEvent) => {
      const target = e.target as HTMLElement | null;
      if (target && /^(INPUT|SELECT|TEXTAREA)$/.test(target.tagName)) return;
      if (e.ctrlKey || e.metaKey || e.altKey || !count) return;
      const t = typedRef.current;
      if (/^[0-9]$/.test(e.key)) {
        e.preventDefault();
        clearTimeout(t.timer as ReturnType<typeof setTimeout>);
        t.text += e.key;
        setTyped(t.text);
        if (Number.parseInt(t.text, 10) * 10 > count) flush();
        else t.timer = setTimeout(flush, 1200);
      } else if (e.key === "Enter" && t.text) {
        e.preventDefault();
        clearTimeout(t.timer as ReturnType<typeof setTimeout>);
        flush();
      } else if (e.key === "Escape") {
        clearTimeout(t.timer as ReturnType<typeof setTimeout>);
        t.text = "";
        setTyped("");
        onClear();
      }
    };
    document.addEventListener("keydown", onKey);
    return () => {
      document.removeEventListener("keydown", onKey);
      clearTimeout(typedRef.current.timer as ReturnType<typeof setTimeout>);
    };
  }, [actions, onChoose]);
  return typed;
}
