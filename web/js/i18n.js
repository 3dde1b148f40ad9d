// Interface strings in English and Slovenian; the choice is remembered.
const STRINGS = {
  en: {
    signin: "Sign in", register: "Register", guest: "Play as guest", username: "Username", password: "Password",
    lobby: "Lobby", newTable: "New table", variant: "Game", tressette: "Tressette", kifameno: "Kifameno",
    opponent: "Opponent", anyone: "Anyone", bot: "Bot", invite: "Private (invite link)", level: "Bot level",
    easy: "easy", normal: "normal", strong: "strong", create: "Open table", join: "Join", watch: "Watch",
    noTables: "No open tables yet: open one!", players: "Players", status: "Status",
    waiting: "waiting", playing: "playing", finished: "finished", closed: "closed",
    waitingOpponent: "Waiting for an opponent…", inviteLink: "Send this link to your opponent:",
    yourTurn: "Your turn", theirTurn: "Opponent's turn", you: "You", opponentLabel: "Opponent",
    stock: "Stock", points: "points", lastTrick: "Last trick", hideLastTrick: "Hide last trick",
    youDrew: "You drew", theyDrew: "opponent drew", youWin: "You win!", youLose: "You lose.",
    rematch: "Rematch", leave: "Leave", yourPile: "Your pile", theirPile: "Opponent's pile",
    reasonTimeout: "ran out of time", reasonLeft: "left the table", chat: "Chat", send: "Send",
    reconnecting: "Connection lost: reconnecting…", spectator: "You are watching", signOut: "Sign out",
    mustFollow: "You must follow suit", seconds: "s", rematchAsked: "Rematch requested",
  },
  sl: {
    signin: "Prijava", register: "Registracija", guest: "Igraj kot gost", username: "Uporabniško ime",
    password: "Geslo", lobby: "Preddverje", newTable: "Nova miza", variant: "Igra", tressette: "Tressette",
    kifameno: "Kifameno", opponent: "Nasprotnik", anyone: "Kdorkoli", bot: "Robot", invite: "Zasebno (povezava)",
    level: "Raven robota", easy: "lahka", normal: "srednja", strong: "močna", create: "Odpri mizo",
    join: "Pridruži se", watch: "Glej", noTables: "Ni odprtih miz: odpri eno!", players: "Igralca",
    status: "Stanje", waiting: "čaka", playing: "igra", finished: "končano", closed: "zaprto",
    waitingOpponent: "Čakamo nasprotnika…", inviteLink: "Pošlji to povezavo nasprotniku:",
    yourTurn: "Na potezi si", theirTurn: "Na potezi je nasprotnik", you: "Ti", opponentLabel: "Nasprotnik",
    stock: "Kup", points: "točk", lastTrick: "Zadnji štih", hideLastTrick: "Skrij zadnji štih",
    youDrew: "Vzel si", theyDrew: "nasprotnik je vzel", youWin: "Zmagal si!", youLose: "Izgubil si.",
    rematch: "Nova igra", leave: "Zapusti", yourPile: "Tvoj kup", theirPile: "Nasprotnikov kup",
    reasonTimeout: "je zmanjkalo časa", reasonLeft: "je zapustil mizo", chat: "Klepet", send: "Pošlji",
    reconnecting: "Povezava prekinjena: ponovno povezovanje…", spectator: "Gledaš igro", signOut: "Odjava",
    mustFollow: "Slediti moraš barvi", seconds: "s", rematchAsked: "Nova igra zahtevana",
  },
};

let lang = localStorage.getItem("treset.lang") || (navigator.language || "en").slice(0, 2);
if (!(lang in STRINGS)) lang = "en";

export function t(key) {
  return STRINGS[lang][key] ?? STRINGS.en[key] ?? key;
}

export function currentLang() {
  return lang;
}

export function setLang(next) {
  lang = next in STRINGS ? next : "en";
  localStorage.setItem("treset.lang", lang);
  document.documentElement.lang = lang;
}
