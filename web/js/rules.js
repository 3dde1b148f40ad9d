// The rules of both games in a dialog, reachable from the lobby and the table (../shared/RULES.md in brief).
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
  },
};

/** Return the rules as a section (in the current language; ``variant`` first when given). */
export function rulesContent(variant = null) {
  const x = packText("rules", TEXT);
  const goals = variant === "kifameno" ? [x.kifameno, x.tressette] : [x.tressette, x.kifameno];
  return h("div", { class: "rules-text" },
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
    h("p", { class: "hint keys-only" }, x.keys));
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
