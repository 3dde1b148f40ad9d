// Interface strings in English and Slovenian (here), Italian and Croatian (lang_it.js, lang_hr.js); the first visit
// takes the browser's preferred language, a choice in the header is remembered (and kept by the account).
import HR from "./lang_hr.js";
import IT from "./lang_it.js";

const STRINGS = {
  en: {
    signin: "Sign in", register: "Register", guest: "Play as guest", username: "Username", password: "Password",
    lobby: "Lobby", puzzles: "Puzzles", newTable: "New table", variant: "Game", tressette: "Tressette", kifameno: "Kifameno",
    opponent: "Opponent", anyone: "Anyone", bot: "Bot", invite: "Private (invite link)", level: "Bot level",
    beginner: "beginner", novice: "novice", easy: "easy", normal: "normal", strong: "strong", master: "master",
    botPool: "Bot pool", botsConnected: "bots connected", botTurns: "turns being thought about", botSlots: "of",
    botTurnsWaiting: "turns waiting for a bot", create: "Open table", join: "Join", watch: "Watch",
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
    // the table: the game named, tricks taken, presence, seats, leaving (params in {braces})
    goal_tressette: "most points wins", goal_kifameno: "fewest points win", rules: "Rules", close: "Close",
    youTookTrick: "You took the trick", theyTookTrick: "{name} took the trick", lastTrickBonus: "with the last-trick bonus",
    skipHint: "Click or press a key to go on", theirTurnNamed: "{name}'s turn", waitFor: "Not your turn: {name} plays.",
    yourHand: "Your hand", handOf: "{name}'s hand", tableCards: "Cards on the table", faceDown: "face-down card",
    away: "{name} lost the connection: {seconds} s to come back", awayNoClock: "{name} lost the connection",
    isBack: "{name} is back", seatMoved: "This game is now open in another tab or device.", playHere: "Play here",
    leaveConfirm: "Leave the table? You lose this deal.", leaveForfeit: "Leave and lose", stay: "Stay",
    leftTable: "You left the table.", watching: "You are watching {a} and {b}", matchScore: "Deals won",
    finalScore: "Points", exactScore: "exact", replayLink: "Replay and analysis", dealOf: "deal {n}",
    // matches to 11, 21 or 31 (match.js)
    format: "Format", format_0: "Single deal", format_11: "Match to 11", format_21: "Match to 21", format_31: "Match to 31",
    matchTo: "Match to {n}", matchDeal: "deal {n} of the match", matchYou: "You {a} : {b} {name}",
    matchNamed: "{a} {x} : {y} {b}", matchAfterDeal: "Match after deal {n}:", matchGain: "this deal +{a} : +{b}",
    matchWonYou: "You won the match {x} : {y}", matchLostYou: "You lost the match {x} : {y}",
    matchWonNamed: "{name} won the match {x} : {y}", matchBy: "by {n}", matchByForfeit: "{name} forfeited the match",
    nextDeal: "Next deal", nextDealAsked: "Waiting for {name}…", nextDealIn: "The next deal starts in {n} s",
    newMatch: "New match", matchLink: "The match's deals", matchTitle: "{a} vs {b} · match to {n}",
    matchDealCol: "Deal", matchBeforeCol: "Before", matchPointsCol: "Points", matchAfterCol: "After",
    profilePuzzles: "Puzzles:", profilePuzzleLine: "rating {rating} · {solved} solved of {tried}",
    leaveConfirmMatch: "Leave the table? You lose the match.", youWinDeal: "You won the deal",
    youLoseDeal: "You lost the deal", winsNamedDeal: "{name} won the deal", matchGoesOn: "The match goes on", matchNone: "No deal of this match has finished yet.",
    online: "{n} online", playBot: "Play the bot", botStarting: "The bot is starting…", inProgress: "Games in progress",
    // quick pairing (web/js/seek.js)
    playPerson: "Play a person", personHint: "One click: you are paired with someone near your rating who waits for the same game.",
    oneDeal: "One deal", toPoints: "To {n}", seekingTitle: "Looking for an opponent…",
    seekingAlone: "Nobody else is waiting for this game yet", seekingOthers: "{n} more waiting, outside your range for now",
    seekingRange: "Your rating {rating}: opponents within ±{range}",
    seekingElapsed: "Waiting: {s}", cancel: "Cancel", botOffer: "Nobody yet? Play the bot at your level.",
    botOfferButton: "Play the bot: {level} ≈{n}", botOfferPlain: "Play the bot: {level}", botOfferKeep: "You keep your place in the queue until you start.",
    yourLevel: "your level", suggestedNote: "★ your level: the bot whose rating is nearest yours.", seekReplaced: "You are looking for an opponent in another tab.", opponentFound: "Opponent found!",
    err_not_seeking: "You are not looking for an opponent.",
    openTables: "Open tables", yourTables: "Your tables", tableOfYours: "A table of yours", backToTable: "Back to the table", nobodyPlaying: "No games in progress.",
    moreOptions: "More options", registerGuest: "Register to keep your games and rating",
    registerKeep: "Register", registered: "Welcome, {name}: your games and rating are yours to keep.",
    signedOut: "Signed out.", noSuchGame: "There is no game with that number.",
    // the server's refusals and notices, by code
    err_not_in_hand: "{card} is not in your hand.", err_must_follow: "You must follow suit: play {suit}.",
    err_bad_card: "That is not a card.", err_not_your_turn: "It is not your turn.", err_no_table: "This table is gone.",
    err_no_bot: "No bot is connected yet for that level; try again in a moment.", err_table_full: "Both seats are taken; you may watch.",
    err_bad_invite: "The invite link is wrong.", err_not_seated: "You are not playing at this table.",
    err_rate_limited: "Slow down: too many messages.", err_game_over: "This deal is over.",
    err_too_many_tables: "You have {limit} {status} tables already: finish or leave one first.",
    err_auth_failed: "Your session has ended: please sign in again.",
    err_too_large: "That message is too long.", err_internal: "The server could not do that; try again.",
    err_table_unavailable: "The table's server is not reachable for a moment: try again in a second.",
    err_unavailable: "The server cannot sign you in right now: reconnecting shortly.",
    form_unavailable: "The server is briefly unavailable: try again in a few seconds.",
    err_bad_message: "The server did not understand that.",
    err_too_many_tables: "You already have {limit} tables like this: finish or leave one first.",
    err_auth_failed: "Your sign-in has expired: sign in again.",
    notice_no_bot: "No bot is connected: the bot plays as soon as one connects.",
    notice_bots_busy: "Every bot is busy: the bot plays as soon as one is free.",
    // a deal's end, told to everyone at the table (web/js/table.js summaryView)
    pt_one: "{n} point", pt_other: "{n} points",
    winsNamed: "{name} wins", byForfeit: "by forfeit",
    cause_left: "{name} left the table.", cause_connection: "{name} lost the connection and did not come back in time.",
    cause_timeout: "{name} ran out of time.", cause_finished: "All 20 tricks played.",
    pileOf: "{name}'s pile", pileTotal: "{points}", withBonus: "with the last-trick bonus",
    trickList: "The tricks", trickLed: "{name} led", trickTook: "{name} took it", backToLobby: "Back to the lobby",
    opponentGone: "Your opponent has left: no rematch. Wait here for a new opponent or go back to the lobby.",
    nobodyTricks: "No trick was completed.",
    // account forms' refusals, by the server's code (server/api/routes_auth.py FormError)
    form_name_taken: "The name {name} is taken: choose another.", form_name_reserved: "The name {name} is reserved: choose another.",
    form_bad_name: "A username is 3 to 32 letters, digits or _ . - (no spaces).",
    form_short_name_one: "A username needs at least {n} character.", form_short_name_other: "A username needs at least {n} characters.",
    form_short_password_one: "A password needs at least {n} character.", form_short_password_other: "A password needs at least {n} characters.",
    form_wrong_password: "Wrong username or password.",
    form_throttled_one: "Too many attempts: try again in {n} second.", form_throttled_other: "Too many attempts: try again in {n} seconds.",
    form_not_guest: "Only a guest account can be registered this way.", form_offline: "The server cannot be reached: try again.",
    strengthOf: "measured strength ≈{n}",
    strengthNote: "≈ measured strength: the level's rating from bot-versus-bot games; the leaderboard shows ratings earned on this site.",
    ratingNote: "Rating: earned in games on this site (± its uncertainty); the lobby's ≈ figures are bot levels' measured strength.",
    // statistics, replays, admin
    leaderboard: "Leaderboard", myProfile: "My profile", admin: "Admin", player: "Player", games: "Games",
    wins: "Wins", winShare: "Win share", pointsTotal: "Points", rating: "Rating", minGames: "Min. games",
    sortBy: "Sort by", noPlayers: "No players with that many games yet.", totals: "Totals",
    recentGames: "Recent games", noGamesYet: "No finished games yet.", ended: "Ended", started: "Started",
    score: "Score", result: "Result", won: "won", lost: "lost", drawResult: "draw", replay: "Replay", versus: "vs",
    role_guest: "guest", role_bot: "bot", role_admin: "admin", role_player: "player",
    reason: "Reason", reason_finished: "played out", reason_timeout: "ran out of time", reason_left: "left the table",
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
    // post-game analysis (web/js/analysis.js)
    an_title: "Analysis", an_queued: "Analysis in progress (position {n} in the queue)",
    an_running: "Analysis in progress: a bot is working on it…",
    an_no_bot: "No analysis bot is connected right now: the game waits for one.",
    an_none: "This game has not been analysed yet.", an_failed: "The analysis failed: {error}",
    an_request: "Request analysis", an_rerun: "Analyse again", an_rerun_newer: "Analyse again (a newer bot is available)",
    an_n_inaccuracies_one: "{n} inaccuracy", an_n_inaccuracies_other: "{n} inaccuracies",
    an_n_mistakes_one: "{n} mistake", an_n_mistakes_other: "{n} mistakes",
    an_n_blunders_one: "{n} blunder", an_n_blunders_other: "{n} blunders",
    an_accuracy: "accuracy", an_avg_loss: "Average loss per card", an_inaccuracies: "inaccuracies",
    an_mistakes: "mistakes", an_blunders: "blunders", an_best: "Best", an_lost: "lost {points}",
    an_label_best: "best", an_label_good: "good", an_label_inaccuracy: "inaccuracy", an_label_mistake: "mistake",
    an_label_blunder: "blunder", an_kind_threw_win: "threw away a win", an_kind_missed_win: "missed a win",
    an_graph_points: "{name}: expected final points", an_graph_win: "{name}: chance to win",
    an_metric_points: "Points", an_metric_win: "Win chance", an_moves: "Moves and their marks",
    an_cards: "Each card's expected final points", an_pick: "The deal is over: pick a move above to see it.",
    an_version: "Analysed by bot {v}.", an_profile: "Accuracy",
    an_status_queued: "queued", an_status_running: "running", an_status_done: "done", an_status_failed: "failed",
    // issue 43: deals, forfeits, puzzles, replays
    need_turn: "Your turn against {name}", need_ready: "{name} is ready for the next deal: come back, or you lose the match",
    need_next: "Your match against {name} goes on: the next deal starts when you are both ready",
    need_wait: "Your match against {name}: the next deal starts as soon as {name} is ready",
    need_playing: "Your game against {name} goes on", need_seconds: "{n} s left", need_back: "Back to the table",
    needsLabel: "Your tables",
    nextDealBoth: "The next deal starts when you are both ready: press “Next deal”.",
    nextDealTheyWait: "{name} is ready: press “Next deal” within {n} s, or you lose the match.",
    nextDealYouWait: "Waiting for {name}: {n} s left to be ready, or {name} loses the match.",
    nextDealWatch: "The next deal starts when both players are ready.",
    nextDealWatchWait: "One player is ready: the other has {n} s.",
    cause_left_you: "You left the table.", cause_connection_you: "You lost the connection and did not come back in time.",
    cause_timeout_you: "You ran out of time.", cause_absent: "{name} was not ready for the next deal in time.",
    cause_absent_you: "You were not ready for the next deal in time.",
    mf_left: "{name} left the table", mf_left_you: "you left the table", mf_timeout: "{name} ran out of time",
    mf_timeout_you: "you ran out of time", mf_absent: "{name} was not ready for the next deal in time",
    mf_absent_you: "you were not ready for the next deal in time", mf_connection: "{name} lost the connection",
    mf_connection_you: "you lost the connection", matchForfeitBy: "by forfeit: {why}",
    notRated: "Not rated: the game ended before both players had played a card.", notRatedShort: "not rated",
    reason_absent: "not ready for the next deal",
    e43_signin: "Sign in to see this page.", e43_403: "You may not see this page.",
    e43_403_game: "Only the players of a private table may replay its games.",
    e43_403_match: "Only the players of a private table may see its match.",
    e43_404: "This page does not exist.", e43_404_game: "There is no finished game with that number.",
    e43_404_match: "There is no match with that number.", e43_404_player: "There is no player with that name.",
    e43_throttled: "Too many requests: wait a moment and try again.",
    provisional: "provisional rating", provisionalMark: "?", privateGame: "private table",

    // issue 43: table, analysis, lobby
    replayEnd: "End of the deal · {n} / {n}",
    an_explain_tressette: "Most points win: the cards are listed best first, the most expected points first. A card's loss is how many points (3 thirds = 1 point) fewer its player can expect to end with than with the best card; a card within the estimate's noise of the best is \"good\".",
    an_explain_kifameno: "Fewest points win: the cards are listed best first, the fewest expected points first. A card's loss is how many points (3 thirds = 1 point) more its player can expect to end with than with the best card; a card within the estimate's noise of the best is \"good\".",
    // issue 47: the double-dummy analysis of a four-player deal (analysis.js)
    an_explain_partnership: "All four hands open (double-dummy): a card's value is the card points its partnership ends with when all four play perfectly from there on (declarations are left out: the play does not change them). A card's loss is how many points (3 thirds = 1 point) fewer than with the best card; the values are exact, so \"best\" is a card no other beats.",
    an_graph_dd: "Points with all hands open", an_cards_partnership: "Each card's final points for the partnership",
    matchGoal_tressette: "the first to {n} wins", matchGoal_kifameno: "reaching {n} loses",
    matchLeadYou: "you lead", matchLeadNamed: "{name} leads", matchLevel: "level", matchLeadFewer: "fewer points",
    playTitle: "Play", seekButton: "Find a person: {game} · {format}",
    // issue 46: the table for four (table4.js, summary4.js, lobby4.js, replay4.js, four.js)
    replacedFor: "in place of {name}",
    err_bad_declaration: "That declaration is not true of your hand, or not allowed now: nothing was played.",
    err_bad_signal: "That signal is not true with that card, or not allowed now: nothing was played.",
    err_seat_taken: "That seat has just been taken: choose another one.",
    partnershipGame: "Tressette for four",
    goal_partnership: "two against two: the side with more points wins",
    team_0: "Blue",
    team_1: "Orange",
    teamYou: "You & {name}",
    freeSeat: "free seat",
    partner: "Partner",
    cardPoints: "Points",
    declaredPoints: "Declared",
    dealScore: "Deal",
    matchTotal: "Match",
    cardsLeft_one: "{n} card",
    cardsLeft_other: "{n} cards",
    declareTitle: "Declare with your first card:",
    declareHint: "The ones marked ✓ are said when you play your first card: tap one to keep it to yourself.",
    signalTitle: "Signal with your lead (if you like):",
    signal_busso: "busso (knock)",
    signal_volo: "volo (fly)",
    signal_striscio: "striscio (drag)",
    signalHint_busso: "Take this trick with your best card and lead this suit back to me.",
    signalHint_volo: "This is my last card of the suit.",
    signalHint_striscio: "I hold more cards of this suit.",
    signalNone: "No signal chosen: choose one first, then the card; or just play a card.",
    signalNotWith: "{signal} would not be true with that card: choose another card, or no signal.",
    saidBy: "{name}: “{words}”",
    talkTitle: "Said at the table",
    trickNo: "trick {n}",
    botTookSeat: "A bot took {name}'s seat ({seat}).",
    leaveConfirm4: "Leave the table? A bot takes your seat and you lose the game; your partner does not.",
    optDeclarations: "declarations (accusi)",
    optSignals: "signals",
    level4_rules: "rule-based",
    seatBot: "Seat a bot here",
    waitingPlayers: "Waiting for players: {n} of 4 seats taken.",
    inviteLink4: "Send this link to the people you want at the table:",
    dealDrawn: "The deal is drawn",
    sideWonDeal: "Your side won the deal",
    sideLostDeal: "Your side lost the deal",
    sideWonMatch: "Your side won the match {x} : {y}",
    sideLostMatch: "Your side lost the match {x} : {y}",
    sideWonMatchNamed: "{name} won the match {x} : {y}",
    matchAbandoned: "everyone left",
    cappottoLine: "Cappotto: {name} took all ten tricks.",
    wholePointsNote: "Points: each side's thirds rounded down (11 a deal); declarations add whole points.",
    allHands: "All four hands as dealt",
    format_41: "Match to 41",
    tableOptions: "Table options",
    playBots4: "Play with a bot partner against two bots",
    playBots4Hint: "Your partner sits across, the opponents left and right. Choose the bots' level:",
    playPeople4: "Play with people",
    openTable4: "Open a table for four",
    seekButton4: "Find three players: {format}",
    people4Hint: "An open table waits in the list until three people sit down; you may seat bots in free seats.",
    unrated: "unrated", partnerField: "Partner (optional):", partnerPlaceholder: "a friend's username",
    partnerHint: "Two friends who name each other sit across as partners; the other two seats go to players of your rating.",
    seekingWithPartner: "Partner: {name} (once they name you too).",
    seekingTitle4: "Looking for players…", seekingFour: "Waiting for a table of four: {n} of 4 here",
    bots4: "Bots in the free seats",
    sitWith: "Sit as {name}'s partner",
    sitSeat: "Sit at seat {n}",
    botOffer4: "Nobody yet? Play now with bots in the missing seats.",
    decl_napoletana: "napoletana of {suit}",
    decl_three_AS: "three Aces (no {suit})",
    decl_three_2: "three Twos (no {suit})",
    decl_three_3: "three Threes (no {suit})",
    decl_four_AS: "four Aces",
    decl_four_2: "four Twos",
    decl_four_3: "four Threes",
  },
  sl: {
    signin: "Prijava", register: "Registracija", guest: "Igraj kot gost", username: "Uporabniško ime",
    password: "Geslo", lobby: "Preddverje", puzzles: "Uganke", newTable: "Nova miza", variant: "Igra", tressette: "Tressette",
    kifameno: "Kifameno", opponent: "Nasprotnik", anyone: "Kdorkoli", bot: "Robot", invite: "Zasebno (povezava)",
    level: "Raven robota", beginner: "začetnik", novice: "novinec", easy: "lahka", normal: "srednja",
    strong: "močna", master: "mojster", botPool: "Roboti", botsConnected: "povezanih robotov",
    botTurns: "potez v razmisleku", botSlots: "od", botTurnsWaiting: "potez čaka na robota", create: "Odpri mizo",
    join: "Pridruži se", watch: "Glej", noTables: "Ni odprtih miz: odpri eno!", players: "Igralca",
    status: "Stanje", waiting: "čaka", playing: "igra", finished: "končano", closed: "zaprto",
    waitingOpponent: "Čakamo nasprotnika…", inviteLink: "Pošlji to povezavo nasprotniku:",
    yourTurn: "Na potezi si", theirTurn: "Na potezi je nasprotnik", you: "Ti", opponentLabel: "Nasprotnik",
    stock: "Talon", points: "točk", lastTrick: "Zadnji štih", hideLastTrick: "Skrij zadnji štih",
    youDrew: "Vzel si", theyDrew: "Nasprotnik je vzel", drawnCards: "Vzeti karti", youWin: "Zmagal si!", youLose: "Izgubil si.",
    rematch: "Nova igra", leave: "Zapusti", yourPile: "Tvoj kup", theirPile: "Nasprotnikov kup",
    reasonTimeout: "je zmanjkalo časa", reasonLeft: "je zapustil mizo", chat: "Klepet", send: "Pošlji",
    reconnecting: "Povezava prekinjena: ponovno povezovanje…", spectator: "Gledaš igro", signOut: "Odjava",
    mustFollow: "Slediti moraš barvi", seconds: "s", rematchAsked: "Nova igra zahtevana",
    goal_tressette: "zmaga več točk", goal_kifameno: "zmaga manj točk", rules: "Pravila", close: "Zapri",
    youTookTrick: "Vzel si štih", theyTookTrick: "{name} je vzel štih", lastTrickBonus: "z bonusom za zadnji štih",
    skipHint: "Klikni ali pritisni tipko za nadaljevanje", theirTurnNamed: "Na potezi je {name}",
    waitFor: "Nisi na potezi: igra {name}.", yourHand: "Tvoje karte", handOf: "Karte: {name}",
    tableCards: "Karte na mizi", faceDown: "skrita karta",
    away: "{name} je izgubil povezavo: še {seconds} s za vrnitev", awayNoClock: "{name} je izgubil povezavo",
    isBack: "{name} je spet tu", seatMoved: "Ta igra je zdaj odprta v drugem zavihku ali napravi.", playHere: "Igraj tukaj",
    leaveConfirm: "Zapustiš mizo? To igro izgubiš.", leaveForfeit: "Zapusti in izgubi", stay: "Ostani",
    leftTable: "Zapustil si mizo.", watching: "Gledaš igro: {a} in {b}", matchScore: "Dobljene igre",
    finalScore: "Točke", exactScore: "natančno", replayLink: "Posnetek in analiza", dealOf: "igra {n}",
    format: "Oblika", format_0: "Ena igra", format_11: "Partija do 11", format_21: "Partija do 21", format_31: "Partija do 31",
    matchTo: "Partija do {n}", matchDeal: "{n}. igra partije", matchYou: "Ti {a} : {b} {name}",
    matchNamed: "{a} {x} : {y} {b}", matchAfterDeal: "Partija po {n}. igri:", matchGain: "ta igra +{a} : +{b}",
    matchWonYou: "Partijo si dobil {x} : {y}", matchLostYou: "Partijo si izgubil {x} : {y}",
    matchWonNamed: "Partijo je dobil {name} {x} : {y}", matchBy: "razlika {n}", matchByForfeit: "{name} je predal partijo",
    nextDeal: "Naslednja igra", nextDealAsked: "Čakamo na igralca {name}…", nextDealIn: "Naslednja igra se začne čez {n} s",
    newMatch: "Nova partija", matchLink: "Igre partije", matchTitle: "{a} proti {b} · partija do {n}",
    matchDealCol: "Igra", matchBeforeCol: "Prej", matchPointsCol: "Točke", matchAfterCol: "Potem",
    profilePuzzles: "Uganke:", profilePuzzleLine: "ocena {rating} · rešenih {solved} od {tried}",
    leaveConfirmMatch: "Zapustiš mizo? Izgubiš partijo.", youWinDeal: "To igro si dobil",
    youLoseDeal: "To igro si izgubil", winsNamedDeal: "To igro je dobil {name}", matchGoesOn: "Partija se nadaljuje", matchNone: "Nobena igra te partije še ni končana.",
    online: "povezanih: {n}", playBot: "Igraj proti robotu", botStarting: "Robot se zaganja…", inProgress: "Igre v teku",
    playPerson: "Igraj proti človeku", personHint: "En klik: dobiš nasprotnika s podobno oceno, ki čaka na isto igro.",
    oneDeal: "Ena igra", toPoints: "Do {n}", seekingTitle: "Iščemo nasprotnika…",
    seekingAlone: "Na to igro še nihče drug ne čaka", seekingOthers: "čakajo še: {n}, zaenkrat zunaj tvojega razpona",
    seekingRange: "Tvoja ocena {rating}: nasprotniki v razponu ±{range}",
    seekingElapsed: "Čakaš: {s}", cancel: "Prekliči", botOffer: "Še nikogar? Igraj proti robotu svoje ravni.",
    botOfferButton: "Igraj proti robotu: {level} ≈{n}", botOfferPlain: "Igraj proti robotu: {level}", botOfferKeep: "Mesto v vrsti obdržiš, dokler igra ne začne.",
    yourLevel: "tvoja raven", suggestedNote: "★ tvoja raven: robot z oceno, ki je najbližje tvoji.", seekReplaced: "Nasprotnika iščeš v drugem zavihku.", opponentFound: "Nasprotnik najden!",
    err_not_seeking: "Ne iščeš nasprotnika.",
    openTables: "Odprte mize", yourTables: "Tvoje mize", tableOfYours: "Tvoja miza", backToTable: "Nazaj za mizo", nobodyPlaying: "Ni iger v teku.",
    moreOptions: "Več možnosti", registerGuest: "Registriraj se in obdrži svoje igre in oceno",
    registerKeep: "Registriraj se", registered: "Dobrodošel, {name}: igre in ocena ostanejo tvoje.",
    signedOut: "Odjavljen si.", noSuchGame: "Igre s to številko ni.",
    err_not_in_hand: "{card} ni med tvojimi kartami.", err_must_follow: "Slediti moraš barvi: igraj {suit}.",
    err_bad_card: "To ni karta.", err_not_your_turn: "Nisi na potezi.", err_no_table: "Te mize ni več.",
    err_no_bot: "Za to raven še ni povezanega robota; poskusi čez trenutek.",
    err_table_full: "Obe mesti sta zasedeni; igro lahko gledaš.", err_bad_invite: "Povezava povabila ni pravilna.",
    err_not_seated: "Za to mizo ne igraš.", err_rate_limited: "Počasneje: preveč sporočil.",
    err_too_many_tables: "Odprtih miz imaš že {limit}: najprej končaj ali zapusti eno.",
    err_auth_failed: "Seja je potekla: prijavi se znova.",
    err_game_over: "Ta igra je končana.", err_too_large: "Sporočilo je predolgo.",
    err_internal: "Strežnik tega ni mogel narediti; poskusi znova.", err_bad_message: "Strežnik sporočila ni razumel.",
    err_table_unavailable: "Strežnik mize za trenutek ni dosegljiv: poskusi znova čez sekundo.",
    err_unavailable: "Strežnik te trenutno ne more prijaviti: kmalu se poveže znova.",
    form_unavailable: "Strežnik je za hip nedosegljiv: poskusi znova čez nekaj sekund.",
    err_too_many_tables: "Takih miz imaš že {limit}: najprej končaj ali zapusti eno.",
    err_auth_failed: "Prijava je potekla: prijavi se znova.",
    notice_no_bot: "Noben robot ni povezan: robot bo igral, ko se poveže.",
    notice_bots_busy: "Vsi roboti so zasedeni: robot bo igral, ko se kateri sprosti.",
    pt_one: "{n} točka", pt_two: "{n} točki", pt_few: "{n} točke", pt_other: "{n} točk",
    winsNamed: "Zmagal je {name}", byForfeit: "brez boja",
    cause_left: "{name} je zapustil mizo.", cause_connection: "{name} je izgubil povezavo in se ni pravočasno vrnil.",
    cause_timeout: "{name} je zmanjkalo časa.", cause_finished: "Odigranih vseh 20 štihov.",
    pileOf: "Kup: {name}", pileTotal: "{points}", withBonus: "z bonusom za zadnji štih",
    trickList: "Štihi", trickLed: "{name} je začel", trickTook: "vzel je {name}", backToLobby: "Nazaj v preddverje",
    opponentGone: "Nasprotnik je odšel: nove igre z njim ne bo. Počakaj tukaj na novega nasprotnika ali se vrni v preddverje.",
    nobodyTricks: "Noben štih ni bil odigran do konca.",
    form_name_taken: "Ime {name} je že zasedeno: izberi drugo.", form_name_reserved: "Ime {name} je rezervirano: izberi drugo.",
    form_bad_name: "Uporabniško ime ima od 3 do 32 črk, števk ali znakov _ . - (brez presledkov).",
    form_short_name_one: "Uporabniško ime mora imeti vsaj {n} znak.", form_short_name_two: "Uporabniško ime mora imeti vsaj {n} znaka.",
    form_short_name_few: "Uporabniško ime mora imeti vsaj {n} znake.", form_short_name_other: "Uporabniško ime mora imeti vsaj {n} znakov.",
    form_short_password_one: "Geslo mora imeti vsaj {n} znak.", form_short_password_two: "Geslo mora imeti vsaj {n} znaka.",
    form_short_password_few: "Geslo mora imeti vsaj {n} znake.", form_short_password_other: "Geslo mora imeti vsaj {n} znakov.",
    form_wrong_password: "Napačno uporabniško ime ali geslo.",
    form_throttled_one: "Preveč poskusov: poskusi znova čez {n} sekundo.", form_throttled_two: "Preveč poskusov: poskusi znova čez {n} sekundi.",
    form_throttled_few: "Preveč poskusov: poskusi znova čez {n} sekunde.", form_throttled_other: "Preveč poskusov: poskusi znova čez {n} sekund.",
    form_not_guest: "Tako se lahko registrira le račun gosta.", form_offline: "Strežnik ni dosegljiv: poskusi znova.",
    strengthOf: "izmerjena moč ≈{n}",
    strengthNote: "≈ izmerjena moč: ocena ravni iz iger robot proti robotu; lestvica kaže ocene, prislužene na tej strani.",
    ratingNote: "Ocena: prislužena v igrah na tej strani (± njena negotovost); številke ≈ v preddverju so izmerjena moč ravni robotov.",
    // statistika, posnetki iger, skrbnik
    leaderboard: "Lestvica", myProfile: "Moj profil", admin: "Skrbnik", player: "Igralec", games: "Igre",
    wins: "Zmage", winShare: "Delež zmag", pointsTotal: "Točke", rating: "Ocena", minGames: "Najmanj iger",
    sortBy: "Razvrsti po", noPlayers: "Še ni igralcev s toliko igrami.", totals: "Skupaj",
    recentGames: "Zadnje igre", noGamesYet: "Še ni končanih iger.", ended: "Konec", started: "Začetek",
    score: "Izid", result: "Rezultat", won: "zmaga", lost: "poraz", drawResult: "neodločeno", replay: "Posnetek", versus: "proti",
    role_guest: "gost", role_bot: "robot", role_admin: "skrbnik", role_player: "igralec",
    reason: "Razlog", reason_finished: "odigrano do konca", reason_timeout: "je zmanjkalo časa",
    reason_left: "je zapustil mizo",
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
    // analiza igre (web/js/analysis.js)
    an_title: "Analiza", an_queued: "Analiza poteka ({n}. mesto v čakalni vrsti)",
    an_running: "Analiza poteka: robot jo računa…",
    an_no_bot: "Trenutno ni povezan noben robot za analize: igra čaka nanj.",
    an_none: "Ta igra še ni analizirana.", an_failed: "Analiza ni uspela: {error}",
    an_request: "Zahtevaj analizo", an_rerun: "Analiziraj znova", an_rerun_newer: "Analiziraj znova (na voljo je novejši robot)",
    an_n_inaccuracies_one: "{n} nenatančnost", an_n_inaccuracies_two: "{n} nenatančnosti",
    an_n_inaccuracies_few: "{n} nenatančnosti", an_n_inaccuracies_other: "{n} nenatančnosti",
    an_n_mistakes_one: "{n} napaka", an_n_mistakes_two: "{n} napaki", an_n_mistakes_few: "{n} napake",
    an_n_mistakes_other: "{n} napak",
    an_n_blunders_one: "{n} huda napaka", an_n_blunders_two: "{n} hudi napaki", an_n_blunders_few: "{n} hude napake",
    an_n_blunders_other: "{n} hudih napak",
    an_accuracy: "natančnost", an_avg_loss: "Povprečna izguba na karto", an_inaccuracies: "nenatančnosti",
    an_mistakes: "napake", an_blunders: "hude napake", an_best: "Najboljša", an_lost: "izguba {points}",
    an_label_best: "najboljša", an_label_good: "dobra", an_label_inaccuracy: "nenatančna", an_label_mistake: "napaka",
    an_label_blunder: "huda napaka", an_kind_threw_win: "zapravljena zmaga", an_kind_missed_win: "zamujena zmaga",
    an_graph_points: "{name}: pričakovane končne točke", an_graph_win: "{name}: možnost zmage",
    an_metric_points: "Točke", an_metric_win: "Možnost zmage", an_moves: "Poteze in njihove ocene",
    an_cards: "Pričakovane končne točke za vsako karto", an_pick: "Igra je končana: izberi potezo zgoraj.",
    an_version: "Analiziral robot {v}.", an_profile: "Natančnost",
    an_status_queued: "v vrsti", an_status_running: "poteka", an_status_done: "narejena", an_status_failed: "ni uspela",
    // issue 43: deals, forfeits, puzzles, replays
    need_turn: "Na potezi si proti igralcu {name}",
    need_ready: "{name} je pripravljen na naslednjo igro: vrni se, sicer izgubiš partijo",
    need_next: "Partija proti igralcu {name} se nadaljuje: naslednja igra se začne, ko bosta oba pripravljena",
    need_wait: "Partija proti igralcu {name}: naslednja igra se začne, ko bo {name} pripravljen",
    need_playing: "Igra proti igralcu {name} teče", need_seconds: "še {n} s", need_back: "Nazaj k mizi",
    needsLabel: "Tvoje mize",
    nextDealBoth: "Naslednja igra se začne, ko bosta oba pripravljena: pritisni »Naslednja igra«.",
    nextDealTheyWait: "{name} je pripravljen: pritisni »Naslednja igra« v {n} s, sicer izgubiš partijo.",
    nextDealYouWait: "Čakamo na igralca {name}: še {n} s, sicer {name} izgubi partijo.",
    nextDealWatch: "Naslednja igra se začne, ko bosta oba igralca pripravljena.",
    nextDealWatchWait: "En igralec je pripravljen: drugi ima še {n} s.",
    cause_left_you: "Zapustil si mizo.", cause_connection_you: "Izgubil si povezavo in se nisi pravočasno vrnil.",
    cause_timeout_you: "Zmanjkalo ti je časa.", cause_absent: "{name} ni bil pravočasno pripravljen na naslednjo igro.",
    cause_absent_you: "Nisi bil pravočasno pripravljen na naslednjo igro.",
    mf_left: "{name} je zapustil mizo", mf_left_you: "zapustil si mizo", mf_timeout: "igralcu {name} je zmanjkalo časa",
    mf_timeout_you: "zmanjkalo ti je časa", mf_absent: "{name} ni bil pravočasno pripravljen na naslednjo igro",
    mf_absent_you: "nisi bil pravočasno pripravljen na naslednjo igro", mf_connection: "{name} je izgubil povezavo",
    mf_connection_you: "izgubil si povezavo", matchForfeitBy: "s predajo: {why}",
    notRated: "Ni ocenjeno: igra se je končala, preden sta oba igralca odigrala karto.", notRatedShort: "ni ocenjeno",
    reason_absent: "ni bil pripravljen na naslednjo igro",
    e43_signin: "Za to stran se prijavi.", e43_403: "Te strani ne smeš videti.",
    e43_403_game: "Igre zasebne mize lahko gledata le njena igralca.",
    e43_403_match: "Partijo zasebne mize lahko vidita le njena igralca.",
    e43_404: "Te strani ni.", e43_404_game: "Končane igre s to številko ni.",
    e43_404_match: "Partije s to številko ni.", e43_404_player: "Igralca s tem imenom ni.",
    e43_throttled: "Preveč zahtev: počakaj trenutek in poskusi znova.",
    provisional: "začasna ocena", provisionalMark: "?", privateGame: "zasebna miza",

    // issue 43: table, analysis, lobby
    replayEnd: "Konec igre · {n} / {n}",
    an_explain_tressette: "Zmaga več točk: karte so razvrščene od najboljše, najprej največ pričakovanih točk. Izguba karte je, za koliko točk (3 tretjine = 1 točka) manj lahko njen igralec pričakuje na koncu kot z najboljšo karto; karta, ki je od najboljše oddaljena le za negotovost ocene, je »dobra«.",
    an_explain_kifameno: "Zmaga manj točk: karte so razvrščene od najboljše, najprej najmanj pričakovanih točk. Izguba karte je, za koliko točk (3 tretjine = 1 točka) več lahko njen igralec pričakuje na koncu kot z najboljšo karto; karta, ki je od najboljše oddaljena le za negotovost ocene, je »dobra«.",
    // issue 47: the double-dummy analysis of a four-player deal (analysis.js)
    an_explain_partnership: "Vse štiri roke odprte (double-dummy): vrednost karte so točke iz kart, ki jih njen par dobi, če od tam naprej vsi štirje igrajo brezhibno (prijave niso štete: igra jih ne spremeni). Izguba karte je, za koliko točk (3 tretjine = 1 točka) manj kot z najboljšo karto; vrednosti so natančne, zato je »najboljša« karta, ki je nobena druga ne preseže.",
    an_graph_dd: "Točke ob odprtih kartah", an_cards_partnership: "Končne točke para za vsako karto",
    matchGoal_tressette: "kdor prvi doseže {n}, zmaga", matchGoal_kifameno: "kdor doseže {n}, izgubi",
    matchLeadYou: "vodiš", matchLeadNamed: "vodi {name}", matchLevel: "izenačeno", matchLeadFewer: "manj točk",
    playTitle: "Igraj", seekButton: "Poišči človeka: {game} · {format}",
    // issue 46: the table for four (table4.js, summary4.js, lobby4.js, replay4.js, four.js)
    replacedFor: "namesto igralca {name}",
    err_bad_declaration: "Ta prijava ne drži za tvoje karte ali zdaj ni dovoljena: nič ni bilo odigrano.",
    err_bad_signal: "Ta znak s to karto ne drži ali zdaj ni dovoljen: nič ni bilo odigrano.",
    err_seat_taken: "To mesto je pravkar nekdo zasedel: izberi drugo.",
    partnershipGame: "Tressette v štiri",
    goal_partnership: "dva proti dvema: zmaga par z več točkami",
    team_0: "Modri",
    team_1: "Oranžni",
    teamYou: "Ti in {name}",
    freeSeat: "prosto mesto",
    partner: "Soigralec",
    cardPoints: "Točke",
    declaredPoints: "Prijavljeno",
    dealScore: "Igra",
    matchTotal: "Partija",
    cardsLeft_one: "{n} karta",
    cardsLeft_two: "{n} karti",
    cardsLeft_few: "{n} karte",
    cardsLeft_other: "{n} kart",
    declareTitle: "Prijavi (akuža) s prvo karto:",
    declareHint: "Označene s ✓ se povejo, ko odigraš prvo karto: tapni katero, da jo obdržiš zase.",
    signalTitle: "Znak ob izigrani karti (če želiš):",
    signal_busso: "busso (trkam)",
    signal_volo: "volo (letim)",
    signal_striscio: "striscio (vlečem)",
    signalHint_busso: "Vzemi ta štih z najboljšo karto in mi vrni to barvo.",
    signalHint_volo: "To je moja zadnja karta te barve.",
    signalHint_striscio: "Imam še karte te barve.",
    signalNone: "Znak ni izbran: najprej izberi znak, nato karto; ali samo odigraj karto.",
    signalNotWith: "{signal} s to karto ne bi bil res: izberi drugo karto ali brez znaka.",
    saidBy: "{name}: »{words}«",
    talkTitle: "Povedano za mizo",
    trickNo: "štih {n}",
    botTookSeat: "Robot je prevzel mesto igralca {name} ({seat}).",
    leaveConfirm4: "Zapustiš mizo? Tvoje mesto prevzame robot, igro izgubiš ti, soigralec pa ne.",
    optDeclarations: "prijave (akuže)",
    optSignals: "znaki",
    level4_rules: "po pravilih",
    seatBot: "Posedi robota",
    waitingPlayers: "Čakamo igralce: zasedenih {n} od 4 mest.",
    inviteLink4: "Pošlji to povezavo tistim, ki jih želiš za mizo:",
    dealDrawn: "Igra je neodločena",
    sideWonDeal: "Tvoj par je dobil igro",
    sideLostDeal: "Tvoj par je izgubil igro",
    sideWonMatch: "Tvoj par je dobil partijo {x} : {y}",
    sideLostMatch: "Tvoj par je izgubil partijo {x} : {y}",
    sideWonMatchNamed: "{name} sta dobila partijo {x} : {y}",
    matchAbandoned: "vsi so odšli",
    cappottoLine: "Kapot: {name} sta vzela vseh deset štihov.",
    wholePointsNote: "Točke: tretjine vsakega para, zaokrožene navzdol (11 na igro); prijave dodajo cele točke.",
    allHands: "Vse štiri roke, kot so bile razdeljene",
    format_41: "Partija do 41",
    tableOptions: "Možnosti mize",
    playBots4: "Igraj v paru z robotom proti dvema robotoma",
    playBots4Hint: "Soigralec sedi nasproti, nasprotnika levo in desno. Izberi raven robotov:",
    playPeople4: "Igraj z ljudmi",
    openTable4: "Odpri mizo za štiri",
    seekButton4: "Poišči tri igralce: {format}",
    people4Hint: "Odprta miza čaka na seznamu, dokler ne sedejo trije; na prosta mesta lahko posediš robote.",
    unrated: "brez ocene", partnerField: "Soigralec (neobvezno):", partnerPlaceholder: "uporabniško ime prijatelja",
    partnerHint: "Prijatelja, ki navedeta drug drugega, sedita nasproti kot par; drugi dve mesti dobita igralca tvoje ocene.",
    seekingWithPartner: "Soigralec: {name} (ko navede tudi tebe).",
    seekingTitle4: "Iščemo igralce…", seekingFour: "Čakamo na mizo za štiri: tu {n} od 4",
    bots4: "Roboti na prostih mestih",
    sitWith: "Sedi kot soigralec igralca {name}",
    sitSeat: "Sedi na mesto {n}",
    botOffer4: "Še nikogar? Igraj zdaj z roboti na manjkajočih mestih.",
    decl_napoletana: "napoletana {suit}",
    decl_three_AS: "trije asi (brez {suit})",
    decl_three_2: "tri dvojke (brez {suit})",
    decl_three_3: "tri trojke (brez {suit})",
    decl_four_AS: "štirje asi",
    decl_four_2: "štiri dvojke",
    decl_four_3: "štiri trojke",
  },
};

// The languages of the page, in the header's order, each named in itself.
const MORE = { it: IT, hr: HR };
for (const [code, pack] of Object.entries(MORE)) STRINGS[code] = pack.strings;
export const LANGS = { en: "English", sl: "Slovenščina", it: IT.name, hr: HR.name };

/** Return the language a first visit gets: the first of the browser's preferred languages the page speaks, else English. */
export function browserLang(preferred = navigator.languages ?? [navigator.language]) {
  for (const tag of preferred ?? []) {
    const base = String(tag).toLowerCase().split("-")[0];
    if (base in LANGS) return base;
  }
  return "en";
}

let lang = localStorage.getItem("treset.lang");
if (!(lang in LANGS)) lang = browserLang();

/** Return the string ``key`` in the current language, with ``{name}`` replaced by ``params.name``. */
export function t(key, params = null) {
  const text = STRINGS[lang][key] ?? STRINGS.en[key] ?? key;
  return params ? text.replace(/\{(\w+)\}/g, (all, name) => (name in params ? String(params[name]) : all)) : text;
}

// Card names as players say them: "Ace of Cups", "as kop", "asso di coppe", "as kupa" (Slovenian and Croatian put
// the suit in the genitive); Italian and Croatian ones come with their language's pack.
const RANKS = {
  en: { "3": "Three", "2": "Two", AS: "Ace", KRALJ: "King", KAVAL: "Knight", FANT: "Jack", "7": "Seven", "6": "Six",
    "5": "Five", "4": "Four" },
  sl: { "3": "trojka", "2": "dvojka", AS: "as", KRALJ: "kralj", KAVAL: "kaval", FANT: "fant", "7": "sedmica",
    "6": "šestica", "5": "petica", "4": "štirica" },
  it: IT.ranks, hr: HR.ranks,
};
const SUITS = {
  en: { K: "Cups", D: "Coins", S: "Swords", B: "Batons" },
  sl: { K: "kope", D: "dinari", S: "špade", B: "baštoni" },
  it: IT.suits, hr: HR.suits,
};
const SUITS_OF = { sl: { K: "kop", D: "dinarjev", S: "špad", B: "baštonov" }, hr: HR.suitsOf };
const CARD = { en: "{rank} of {suit}", sl: "{rank} {suitOf}", it: IT.card, hr: HR.card };
// The corner letters: English and Slovenian pages keep the Italian cavallo (C) and fante (F) beside A and K.
const LETTERS = { en: { AS: "A", KRALJ: "K", KAVAL: "C", FANT: "F" }, sl: { AS: "A", KRALJ: "K", KAVAL: "C", FANT: "F" },
  it: IT.letters, hr: HR.letters };
// "igraj dinarje": the suit as the object of a verb (the accusative in Slovenian and Croatian).
const SUITS_TO = { sl: { K: "kope", D: "dinarje", S: "špade", B: "baštone" },
  hr: { K: "kupe", D: "dinare", S: "špade", B: "baštone" } };

/** Return the name of the card written ``"D AS"`` in the current language (e.g. "Ace of Coins", "as dinarjev"). */
export function cardName(card) {
  const [suit, rank] = String(card).split(" ");
  if (!(rank in RANKS.en) || !(suit in SUITS.en)) return String(card);
  return CARD[lang].replace("{rank}", RANKS[lang][rank]).replace("{suit}", SUITS[lang][suit])
    .replace("{suitOf}", SUITS_OF[lang]?.[suit] ?? SUITS[lang][suit]);
}

/** Return the letter (or number) in the corner of a card of ``rank`` in the current language: an Italian king is R. */
export function cardLetter(rank) {
  return LETTERS[lang][rank] ?? rank;
}

/** Return the name of a suit letter as the object of a verb ("play Coins", "igraj dinarje"). */
export function suitToPlay(suit) {
  return SUITS_TO[lang]?.[suit] ?? suitName(suit);
}

/** Return the name of a suit letter (K, D, S, B) in the current language. */
export function suitName(suit) {
  return SUITS[lang][suit] ?? SUITS.en[suit] ?? String(suit);
}

/** Return a suit letter's name in the genitive where the language has one ("dinarjev", "dinara"), else its name:
 * for "napoletana {suitOf}", "brez {suitOf}". */
export function suitOfName(suit) {
  return SUITS_OF[lang]?.[suit] ?? suitName(suit);
}

/** Return a language's text of a page's own table (``pack`` is "rules", "puzzles" or "themes"; English and
 * Slovenian pages pass their own in ``own``), the English one for a language without it. */
export function packText(pack, own) {
  return own[lang] ?? MORE[lang]?.[pack] ?? own.en;
}

/** Return ``x`` with ``digits`` decimals as the language writes it: "2.50" in English, "2,50" in the others. */
export function num(x, digits) {
  return new Intl.NumberFormat(lang, { minimumFractionDigits: digits, maximumFractionDigits: digits, useGrouping: false })
    .format(x);
}

/** Return a share 0..1 as a percentage with ``digits`` decimals in the language's way: "62.5%", "62,5 %". */
export function percent(x, digits = 1) {
  return new Intl.NumberFormat(lang, { style: "percent", minimumFractionDigits: digits, maximumFractionDigits: digits })
    .format(x);
}

/** Return points counted in thirds as players write them: 11 -> "3⅔", 1 -> "⅓", 0 -> "0". */
export function points(thirds) {
  const whole = Math.floor(thirds / 3);
  const part = ["", "⅓", "⅔"][thirds % 3];
  return whole === 0 && part ? part : `${whole}${part}`;
}

/** Return the phrase ``key`` for the number ``n`` in the language's plural form (``key_one``, ``key_two``,
 * ``key_few``, ``key_other``: Slovenian has four by n % 100: 1, 2, 3-4, 5+, Croatian three, Italian two), ``{n}``
 * replaced by ``shown``. A fraction takes ``key_frac`` where the language has one (Croatian "3⅔ punta"). */
export function plural(key, n, shown = n, params = {}) {
  const table = STRINGS[lang];
  if (!Number.isInteger(n) && `${key}_frac` in table) return t(`${key}_frac`, { ...params, n: shown });
  const form = new Intl.PluralRules(lang).select(n);
  const name = [`${key}_${form}`, `${key}_other`].find((k) => k in table || k in STRINGS.en);
  return t(name, { ...params, n: shown });
}

/** Return points counted in thirds with their word: "1 point", "2⅓ points", "1 točka", "5 točk". */
export function pointsText(thirds) {
  return plural("pt", thirds / 3, points(thirds));
}

/** Return the name of ``value`` (under ``prefix``, e.g. tx("reason", "left")), or the value itself when unnamed. */
export function tx(prefix, value) {
  const key = prefix ? `${prefix}_${value}` : value;
  return STRINGS[lang][key] ?? STRINGS.en[key] ?? String(value);
}

/** Return the page's language code (en, sl, it, hr). */
export function currentLang() {
  return lang;
}

/** Switch the page to ``next`` (English for a language it does not speak); ``remember`` keeps the choice in this
 * browser (a first visit that only followed the browser's languages is not remembered). */
export function setLang(next, remember = true) {
  lang = next in LANGS ? next : "en";
  if (remember) localStorage.setItem("treset.lang", lang);
  document.documentElement.lang = lang;
}
