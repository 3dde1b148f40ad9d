// The rules of both games (and of Tressette for four) in a dialog, reachable from the lobby and the table (../shared/RULES.md in brief).
import { cardEl } from "./cards.js";
import { h } from "./dom.js";
import { packText, t } from "./i18n.js";

// The strength order, strongest first, shown as cards of one suit.
const ORDER = ["3", "2", "AS", "KRALJ", "KAVAL", "FANT", "7", "6", "5", "4"];

// The cards whose corner letters need a word (on English and Slovenian pages C and F are the Italian cavallo and
// fante), and two with numbers. Italian and Croatian rules come with their language (lang_it.js, lang_hr.js).
const LEGEND = ["AS", "KRALJ", "KAVAL", "FANT", "3", "7"];

const TEXT = {
  en: {
    title: "How to play",
    cards: "40 Italian cards: four suits (Cups, Coins, Swords, Batons) of ten. Two players.",
    strength: "Strength inside a suit, strongest first:",
    points: "Card points: the Ace is worth 1 point; the 3, 2, King, Knight and Jack ⅓ each; the 7, 6, 5 and 4 nothing. "
      + "Whoever takes the last trick gets 1 point more. A deal holds 11⅔ points; at the end the thirds are dropped "
      + "(11 in all), so \"3⅔\" counts as 3.",
    play: "Each player gets 10 cards; the other 20 are the stock. The leader plays any card; the other player must "
      + "follow suit if they can, otherwise plays any card. The higher card of the suit led takes the trick (a card "
      + "of another suit never wins), and the trick's winner leads next.",
    stock: "While the stock lasts, after each trick the winner draws the top card, then the other player draws. "
      + "Every drawn card is shown to the opponent. Once the stock is empty, the last 10 tricks are played with every "
      + "card known.",
    letters: "The letters in the cards' corners:",
    names: { AS: "A = Ace", KRALJ: "K = King", KAVAL: "C = Knight (cavallo)", FANT: "F = Jack (fante)", "3": "3 = Three", "7": "7 = Seven" },
    dots: "The dots at the bottom of a card mark its points: each dot ⅓ point, so the Ace's three dots make 1 point; "
      + "a card without dots is worth nothing.",
    tressette: "Tressette: the player with more points wins (at least 6 of 11).",
    kifameno: "Kifameno (Ciapano, \"who takes less\"): the same play, but the player with fewer points wins.",
    keys: "At the table, keys 1–9 and 0 play your first to tenth playable card; a click or a key skips the pause "
      + "after a trick.",
    match: "Matches to 11, 21 or 31: each deal adds the whole points each player took (11 a deal, thirds dropped). "
      + "In Tressette the first to reach the target at the end of a deal wins the match; if both reach it in the "
      + "same deal, the higher total wins. In Kifameno the first to reach the target loses; if both reach it, the "
      + "higher total loses. Equal totals play another deal. The first lead alternates between deals; leaving or "
      + "running out of time loses the match.",
    nextDeal: "Between two deals of a match the next one starts only when both players are ready (\"Next deal\"; a "
      + "bot is ready at once): nobody's clock runs before they could see the new deal, even while reading the replay "
      + "or the analysis. Once one player is ready, the other has 2 minutes, or loses the match.",
    aborted: "A game lost by a forfeit before both players had played a card is not rated and does not count on the "
      + "leaderboard.",
    twoTitle: "Tressette and Kifameno for two",
    fourTitle: "Tressette for four: two against two",
    fourSeats: "Four players in two partnerships: partners sit across the table. All 40 cards are dealt, 10 each, with no stock. Play goes counter-clockwise, to the player on your right; everyone must follow suit if they can, and the highest card of the suit led takes the trick. The first lead is drawn for a table's first deal and passes to the next player each deal.",
    fourPoints: "Card points as in the two-player game, 11⅔ a deal with the last trick's point. Partners count their tricks together and drop the thirds, so the two partnerships share 11 points a deal.",
    fourDeclarations: "Declarations (accusi), a table option, on by default in matches to 31 and 41: with your first card you may declare a napoletana (the Ace, 2 and 3 of one suit: 3 points), three Aces, 2s or 3s (3 points; the missing suit is said) or all four (4 points). Declared points are added to the partnership's score; a false declaration is refused.",
    fourSignals: "Signals, a table option: from the second trick on, the player who leads may give one signal with the card: busso (knock: take this trick with your best card and lead this suit back), volo (fly: this was my last card of the suit) or striscio (drag: I have more of this suit). Everyone hears them, and they must be true.",
    fourMatch: "Single deals or matches to 21, 31 or 41: the first partnership to reach the target at the end of a deal wins; if both do, the higher total; equal totals play on. Taking all ten tricks (cappotto) scores the 11 points and nothing more. When a player leaves or runs out of time, a bot takes the seat so the other three can finish; only the leaver loses rating.",
  },
  sl: {
    title: "Kako se igra",
    cards: "40 italijanskih kart: štiri barve (kope, dinari, špade, baštoni) po deset. Igrata dva igralca.",
    strength: "Moč v barvi, od najmočnejše:",
    points: "Točke kart: as velja 1 točko; trojka, dvojka, kralj, kaval in fant po ⅓; sedmica, šestica, petica in "
      + "štirica nič. Kdor vzame zadnji štih, dobi še 1 točko. V igri je 11⅔ točke; na koncu se tretjine ne štejejo "
      + "(skupaj 11), zato \"3⅔\" šteje kot 3.",
    play: "Vsak igralec dobi 10 kart; ostalih 20 je talon. Kdor začne, igra katerokoli karto; drugi mora slediti barvi, "
      + "če jo ima, sicer igra katerokoli. Štih vzame višja karta barve, ki je bila igrana prva (karta druge barve "
      + "nikoli ne zmaga), in kdor vzame štih, začne naslednjega.",
    stock: "Dokler je talon, po vsakem štihu zmagovalec vzame vrhnjo karto, nato še drugi igralec. Vsaka vzeta karta "
      + "se pokaže nasprotniku. Ko talona zmanjka, se zadnjih 10 štihov igra z znanimi kartami.",
    letters: "Črke v kotih kart:",
    names: { AS: "A = as", KRALJ: "K = kralj", KAVAL: "C = kaval", FANT: "F = fant", "3": "3 = trojka", "7": "7 = sedmica" },
    dots: "Pike na dnu karte kažejo njene točke: vsaka pika je ⅓ točke, tri pike asa so 1 točka; karta brez pik ne "
      + "velja nič.",
    tressette: "Tressette: zmaga igralec z več točkami (vsaj 6 od 11).",
    kifameno: "Kifameno (Ciapano, \"kdo vzame manj\"): enaka igra, a zmaga igralec z manj točkami.",
    keys: "Za mizo tipke 1–9 in 0 odigrajo prvo do deseto karto, ki jo smeš igrati; klik ali tipka preskoči premor po "
      + "štihu.",
    match: "Partije do 11, 21 ali 31: vsaka igra prišteje cele točke, ki jih je vzel vsak igralec (11 na igro, brez "
      + "tretjin). Pri tressetu partijo dobi, kdor prvi doseže cilj ob koncu igre; če ga v isti igri dosežeta oba, "
      + "zmaga višji seštevek. Pri kifamenu partijo izgubi, kdor prvi doseže cilj; če ga dosežeta oba, izgubi višji "
      + "seštevek. Pri enakem seštevku se igra še ena igra. Prvi izigra izmenično; kdor zapusti mizo ali mu zmanjka "
      + "časa, izgubi partijo.",
    nextDeal: "Med dvema igrama partije se naslednja začne šele, ko sta pripravljena oba (\"Naslednja igra\"; robot je "
      + "pripravljen takoj): nikomur ne teče čas, preden novo igro vidi, tudi če bere posnetek ali analizo. Ko je "
      + "pripravljen eden, ima drugi 2 minuti, sicer izgubi partijo.",
    aborted: "Igra, ki se konča s predajo, preden sta oba igralca odigrala karto, se ne oceni in se ne šteje na "
      + "lestvici.",
    twoTitle: "Tressette in kifameno za dva",
    fourTitle: "Tressette v štiri: dva proti dvema",
    fourSeats: "Štirje igralci v dveh parih: soigralca sedita drug nasproti drugemu. Razdeli se vseh 40 kart, vsakemu 10, talona ni. Igra gre v nasprotni smeri urinega kazalca, k igralcu na tvoji desni; vsak mora slediti barvi, če jo ima, štih pa vzame najvišja karta barve, ki je bila izigrana prva. Kdo izigra prvi, se v prvi igri mize izžreba, nato pa se vsako igro pomakne k naslednjemu igralcu.",
    fourPoints: "Točke kart kot v igri za dva, 11⅔ na igro s točko zadnjega štiha. Soigralca štejeta štihe skupaj in tretjine odpadejo, zato si para v vsaki igri razdelita 11 točk.",
    fourDeclarations: "Prijave (akuže), možnost mize, privzeto vklopljene v partijah do 31 in 41: s prvo karto lahko prijaviš napoletano (as, dvojko in trojko iste barve: 3 točke), tri ase, dvojke ali trojke (3 točke; pove se barva, ki manjka) ali vse štiri (4 točke). Prijavljene točke se prištejejo paru; lažna prijava se zavrne.",
    fourSignals: "Znaki, možnost mize: od drugega štiha naprej lahko tisti, ki izigra prvi, s karto da en znak: busso (trkam: vzemi ta štih z najboljšo karto in mi vrni to barvo), volo (letim: to je bila moja zadnja karta te barve) ali striscio (vlečem: imam še to barvo). Slišijo jih vsi in morajo biti resnični.",
    fourMatch: "Posamezne igre ali partije do 21, 31 ali 41: zmaga par, ki prvi doseže cilj ob koncu igre; če ga dosežeta oba, višji seštevek; pri enakem se igra naprej. Vseh deset štihov (kapot) prinese 11 točk in nič več. Ko igralec zapusti mizo ali mu zmanjka časa, njegovo mesto prevzame robot, da ostali trije končajo; oceno izgubi le tisti, ki je odšel.",
  },
};

/** Return the rules as a section (in the current language; ``variant`` first when given). */
export function rulesContent(variant = null) {
  const x = packText("rules", TEXT);
  const goals = variant === "kifameno" ? [x.kifameno, x.tressette] : [x.tressette, x.kifameno];
  // The game for four (docs/four-player-rules.md): first at a four-player table, after the two-player rules elsewhere.
  const four = h("section", { class: "rules-four", id: "rules-four" },
    h("h3", {}, x.fourTitle), h("p", {}, x.fourSeats), h("p", {}, x.fourPoints),
    h("p", { id: "rules-declarations" }, x.fourDeclarations), h("p", { id: "rules-signals" }, x.fourSignals),
    h("p", {}, x.fourMatch));
  return h("div", { class: "rules-text" },
    variant === "partnership" ? four : null,
    variant === "partnership" ? h("h3", { class: "rules-two" }, x.twoTitle) : null,
    h("p", {}, x.cards),
    h("p", {}, x.strength),
    h("div", { class: "hand rules-order" }, ORDER.map((rank) => cardEl(`D ${rank}`, { small: true }))),
    h("p", {}, x.letters),
    h("div", { class: "rules-legend", id: "rules-legend" }, LEGEND.map((rank) => h("figure", {},
      cardEl(`K ${rank}`, { small: true }), h("figcaption", {}, x.names[rank])))),
    h("p", { id: "rules-dots" }, x.dots),
    h("p", {}, x.points), h("p", {}, x.play), h("p", {}, x.stock),
    goals.map((g) => h("p", { class: "goal" }, g)),
    h("p", { id: "rules-match" }, x.match),
    h("p", { id: "rules-next-deal" }, x.nextDeal),
    h("p", { id: "rules-aborted" }, x.aborted),
    h("p", { class: "hint keys-only" }, x.keys),
    variant === "partnership" ? null : four);
}

/** Open the rules dialog (``variant``'s goal first); Escape or the close button shut it. */
export function openRules(variant = null) {
  document.getElementById("rules-dialog")?.remove();
  const close = () => dialog.close();
  const dialog = h("dialog", { id: "rules-dialog", class: "rules", "aria-labelledby": "rules-title" },
    h("div", { class: "row rules-head" },
      h("h2", { id: "rules-title" }, packText("rules", TEXT).title),
      h("button", { type: "button", class: "ghost", id: "rules-close", onclick: close }, t("close"))),
    rulesContent(variant));
  dialog.addEventListener("close", () => dialog.remove());
  dialog.addEventListener("click", (e) => { if (e.target === dialog) close(); }); // a click beside the panel
  document.body.append(dialog);
  dialog.showModal();
}

/** Return a "Rules" button that opens the dialog. */
export function rulesButton(variant = null) {
  return h("button", { type: "button", class: "ghost small", id: "rules-open", onclick: () => openRules(variant) }, t("rules"));
}
