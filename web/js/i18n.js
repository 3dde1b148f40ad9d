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
    youDrew: "You drew", theyDrew: "Opponent drew", drawnCards: "Drawn cards", youWin: "You win!", youLose: "You lose.",
    rematch: "Rematch", leave: "Leave", yourPile: "Your pile", theirPile: "Opponent's pile",
    reasonTimeout: "ran out of time", reasonLeft: "left the table", chat: "Chat", send: "Send",
    reconnecting: "Connection lost: reconnecting…", spectator: "You are watching", signOut: "Sign out",
    mustFollow: "You must follow suit", seconds: "s", rematchAsked: "Rematch requested",
    // statistics, replays, admin
    leaderboard: "Leaderboard", myProfile: "My profile", admin: "Admin", player: "Player", games: "Games",
    wins: "Wins", winShare: "Win share", pointsTotal: "Points", rating: "Rating", minGames: "Min. games",
    sortBy: "Sort by", noPlayers: "No players with that many games yet.", totals: "Totals",
    recentGames: "Recent games", noGamesYet: "No finished games yet.", ended: "Ended", started: "Started",
    score: "Score", result: "Result", won: "won", lost: "lost", replay: "Replay", versus: "vs",
    role_guest: "guest", role_bot: "bot", role_admin: "admin", role_player: "player",
    reason: "Reason", reason_finished: "played out", reason_timeout: "ran out of time", reason_left: "left the table",
    err401: "Sign in first", err403: "Not allowed", err404: "Not found", errOther: "Error",
    move: "Move", firstMove: "First move", stepBack: "Step back", stepForward: "Step forward", lastMove: "Last move",
    replayKeys: "Keys ← → step through the game, Home and End jump to its ends.", plays: "plays",
    tricks: "Tricks", winner: "Winner", drew: "drew", copyRecord: "Copy text record",
    copied: "Copied to the clipboard.", copyByHand: "Select the text below to copy it.",
    exportMoves: "Export moves", format: "Format", any: "any", dateFrom: "From (date)", dateTo: "To (date)",
    minWinShare: "Min. win share (0–1)", minRating: "Min. rating", download: "Download", working: "Working…",
    downloaded: "Downloaded", bytes: "bytes", searchGames: "Search games", search: "Search",
    noGames: "No games.", aggregates: "Statistics", gamesPerDay: "Games per day", day: "Day",
    pointsByVariant: "Average points by game", avgWinner: "Winner's points", avgLoser: "Loser's points",
    botWinRates: "Bot win rates", opponents: "Against", opp_bots: "bots", opp_people: "people",
    botSeries: "Bot-versus-bot series", levelA: "Level A", levelB: "Level B", startSeries: "Start the series",
    seriesStarted: "Series started at table",
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
    youDrew: "Vzel si", theyDrew: "Nasprotnik je vzel", drawnCards: "Vzeti karti", youWin: "Zmagal si!", youLose: "Izgubil si.",
    rematch: "Nova igra", leave: "Zapusti", yourPile: "Tvoj kup", theirPile: "Nasprotnikov kup",
    reasonTimeout: "je zmanjkalo časa", reasonLeft: "je zapustil mizo", chat: "Klepet", send: "Pošlji",
    reconnecting: "Povezava prekinjena: ponovno povezovanje…", spectator: "Gledaš igro", signOut: "Odjava",
    mustFollow: "Slediti moraš barvi", seconds: "s", rematchAsked: "Nova igra zahtevana",
    // statistika, posnetki iger, skrbnik
    leaderboard: "Lestvica", myProfile: "Moj profil", admin: "Skrbnik", player: "Igralec", games: "Igre",
    wins: "Zmage", winShare: "Delež zmag", pointsTotal: "Točke", rating: "Ocena", minGames: "Najmanj iger",
    sortBy: "Razvrsti po", noPlayers: "Še ni igralcev s toliko igrami.", totals: "Skupaj",
    recentGames: "Zadnje igre", noGamesYet: "Še ni končanih iger.", ended: "Konec", started: "Začetek",
    score: "Izid", result: "Rezultat", won: "zmaga", lost: "poraz", replay: "Posnetek", versus: "proti",
    role_guest: "gost", role_bot: "robot", role_admin: "skrbnik", role_player: "igralec",
    reason: "Razlog", reason_finished: "odigrano do konca", reason_timeout: "je zmanjkalo časa",
    reason_left: "je zapustil mizo",
    err401: "Najprej se prijavi", err403: "Ni dovoljeno", err404: "Ni najdeno", errOther: "Napaka",
    move: "Poteza", firstMove: "Prva poteza", stepBack: "Korak nazaj", stepForward: "Korak naprej",
    lastMove: "Zadnja poteza", replayKeys: "Tipki ← → premikata po igri, Home in End skočita na začetek in konec.",
    plays: "igra", tricks: "Štihi", winner: "Zmagovalec", drew: "je vzel", copyRecord: "Kopiraj zapis igre",
    copied: "Kopirano v odložišče.", copyByHand: "Označi spodnje besedilo in ga kopiraj.",
    exportMoves: "Izvoz potez", format: "Oblika", any: "vse", dateFrom: "Od (datum)", dateTo: "Do (datum)",
    minWinShare: "Najmanjši delež zmag (0–1)", minRating: "Najmanjša ocena", download: "Prenesi",
    working: "Delam…", downloaded: "Preneseno", bytes: "bajtov", searchGames: "Iskanje iger", search: "Išči",
    noGames: "Ni iger.", aggregates: "Statistika", gamesPerDay: "Igre na dan", day: "Dan",
    pointsByVariant: "Povprečne točke po igri", avgWinner: "Točke zmagovalca", avgLoser: "Točke poraženca",
    botWinRates: "Uspešnost robotov", opponents: "Proti", opp_bots: "robotom", opp_people: "ljudem",
    botSeries: "Serija robot proti robotu", levelA: "Raven A", levelB: "Raven B", startSeries: "Začni serijo",
    seriesStarted: "Serija se je začela za mizo",
  },
};

let lang = localStorage.getItem("treset.lang") || (navigator.language || "en").slice(0, 2);
if (!(lang in STRINGS)) lang = "en";

export function t(key) {
  return STRINGS[lang][key] ?? STRINGS.en[key] ?? key;
}

/** Return the name of ``value`` (under ``prefix``, e.g. tx("reason", "left")), or the value itself when unnamed. */
export function tx(prefix, value) {
  const key = prefix ? `${prefix}_${value}` : value;
  return STRINGS[lang][key] ?? STRINGS.en[key] ?? String(value);
}

export function currentLang() {
  return lang;
}

export function setLang(next) {
  lang = next in STRINGS ? next : "en";
  localStorage.setItem("treset.lang", lang);
  document.documentElement.lang = lang;
}
