// The puzzle page's words in English and Slovenian (Italian and Croatian in lang_it.js, lang_hr.js), and the themes' names with a line explaining each.
import { packText } from "./i18n.js";

const TEXT = {
  en: {
    title: "Puzzles",
    why: "Every card is known: the stock is empty, and each card was shown when it was drawn, so both hands lie "
      + "face up — just as the players knew them in the real game.",
    goal_tressette: "Win the deal",
    goal_kifameno: "Finish with fewer points",
    find: "Your move: find the card that wins the deal.",
    find_kifameno: "Your move: find the card that keeps you under your opponent.",
    right: "Right! Your opponent answered: go on.",
    solved: "Solved!",
    wrong: "Not that one.",
    refutation: "How your card loses",
    solution: "The winning line",
    rating: "Your puzzle rating",
    puzzleRating: "Puzzle rating {n}",
    steps: "Cards to find: {n}",
    change: "Rating {before} → {after} ({change})",
    themes: "Themes",
    next: "Next puzzle",
    game: "See the game it came from",
    none: "No puzzle near your rating is waiting for you in this game type now: try the other one, or come back after more games.",
    none_any: "No puzzle near your rating is waiting for you now: come back after more games have been played.",
    provisional: "provisional: it settles after a few more puzzles",
    any: "Either game",
    pointsSoFar: "Points so far",
    you: "You", opponent: "Opponent",
    took: "takes", youTook: "you take", theyTook: "opponent takes",
    endsWith: "At the end: you {you}, your opponent {opp}: you lose.",
    keys: "Keys 1–9 and 0 play your first to tenth playable card.",
    thinking: "Checking…",
    err_not_served: "This puzzle was not given to you: ask for the next one.",
    err_answered: "You have answered this puzzle already.",
    err_out_of_step: "The puzzle moved on in another tab: reload it.",
    err_other: "The server could not take that card: try again.",
    tried: "Tried", solvedCount: "Solved", source: "Game · move",
  },
  sl: {
    title: "Uganke",
    why: "Vse karte so znane: talona ni več, vsaka vzeta karta pa je bila pokazana, zato sta obe roki odkriti — "
      + "tako, kot sta ju igralca poznala v pravi igri.",
    goal_tressette: "Zmagaj v igri",
    goal_kifameno: "Končaj z manj točkami",
    find: "Na potezi si: najdi karto, ki dobi igro.",
    find_kifameno: "Na potezi si: najdi karto, s katero ostaneš pod nasprotnikom.",
    right: "Pravilno! Nasprotnik je odgovoril: nadaljuj.",
    solved: "Rešeno!",
    wrong: "Ne ta.",
    refutation: "Kako tvoja karta izgubi",
    solution: "Zmagovita pot",
    rating: "Tvoja ocena v ugankah",
    puzzleRating: "Ocena uganke {n}",
    steps: "Karte, ki jih iščeš: {n}",
    change: "Ocena {before} → {after} ({change})",
    themes: "Teme",
    next: "Naslednja uganka",
    game: "Poglej igro, iz katere je",
    none: "V tej igri te zdaj ne čaka nobena uganka blizu tvoje ocene: poskusi drugo ali se vrni po novih igrah.",
    none_any: "Zdaj te ne čaka nobena uganka blizu tvoje ocene: vrni se, ko bo odigranih več iger.",
    provisional: "začasna: ustali se po nekaj ugankah",
    any: "Katerakoli igra",
    pointsSoFar: "Točke do zdaj",
    you: "Ti", opponent: "Nasprotnik",
    took: "vzame", youTook: "vzameš ti", theyTook: "vzame nasprotnik",
    endsWith: "Na koncu: ti {you}, nasprotnik {opp}: izgubiš.",
    keys: "Tipke 1–9 in 0 odigrajo prvo do deseto karto, ki jo smeš igrati.",
    thinking: "Preverjam…",
    err_not_served: "Te uganke nisi dobil: zahtevaj naslednjo.",
    err_answered: "To uganko si že rešil.",
    err_out_of_step: "Uganka se je nadaljevala v drugem zavihku: naloži jo znova.",
    err_other: "Strežnik karte ni sprejel: poskusi znova.",
    tried: "Poskusov", solvedCount: "Rešenih", source: "Igra · poteza",
  },
};

/** The theme keys the finder tags (docs/protocol.md, "Puzzles"): a name and one line each. */
const THEMES = {
  en: {
    take_ace: ["Take the ace", "The line wins a trick that holds your opponent's ace."],
    give_lead: ["Give up the trick", "You let your opponent take a trick you could win, so that they must lead next."],
    last_trick: ["Last trick", "The extra point for the last trick decides the deal."],
    low_follow: ["Follow low", "Follow suit with a low card and keep a higher one, worth as much or more, for later."],
    dump_points: ["Unload points", "Throw a card worth points onto a trick your opponent takes."],
    one_move: ["One card", "A single card to find."],
    long: ["Long line", "Three cards or more to find, each the only good one."],
  },
  sl: {
    take_ace: ["Vzemi asa", "Pot dobi štih z nasprotnikovim asom."],
    give_lead: ["Prepusti štih", "Nasprotniku pustiš štih, ki bi ga lahko vzel, da mora on začeti naslednjega."],
    last_trick: ["Zadnji štih", "Dodatna točka za zadnji štih odloči igro."],
    low_follow: ["Nizko slediti", "Barvi slediš z nizko karto in višjo, vredno vsaj toliko, prihraniš za pozneje."],
    dump_points: ["Odvrzi točke", "Karto s točkami vržeš na štih, ki ga vzame nasprotnik."],
    one_move: ["Ena karta", "Najti je treba eno samo karto."],
    long: ["Dolga pot", "Najti je treba tri karte ali več, vsakič edino dobro."],
  },
};

/** Return the page's phrase ``key`` in the current language, ``{name}`` replaced from ``params``. */
export function pt(key, params = {}) {
  const table = packText("puzzles", TEXT);
  const text = table[key] ?? TEXT.en[key] ?? key;
  return text.replace(/\{(\w+)\}/g, (_, name) => String(params[name] ?? `{${name}}`));
}

/** Return a theme's [name, explanation] in the current language (an unknown key stands for itself). */
export function themeText(key) {
  return packText("themes", THEMES)[key] ?? THEMES.en[key] ?? [key, ""];
}
