// The page's words in the two languages the bot speaks. The bot's own
// messages (refusals by the rules, the result line) come from the server
// already translated; these are the page's labels and its words for every
// other error.

export type Lang = 'fr' | 'en';

const en = {
  connecting: 'Connecting to Discord…',
  outside: 'This page runs inside Discord: open it with the “Scratch by hand” button of a /play card.',
  failed: 'The Activity could not start: {0}',
  ticket: 'Ticket #{0} · stake {1}',
  hint: 'Scratch a row with your finger or the mouse, or press Enter to reveal the next one.',
  row: 'Row {0}: scratch it, or press Enter to reveal it',
  next: 'Reveal the next row',
  auto: 'Auto',
  play: 'Play ({0})',
  again: 'Play again ({0})',
  chest: 'Open the chest',
  chestReady: 'Three keys: the treasure chest is ready. It always wins.',
  daily: 'Daily bonus ({0})',
  chestShut: 'A treasure chest, locked',
  chestOpen: 'The treasure chest, open',
  balance: 'Balance',
  keys: 'Keys',
  network: 'The connection failed. Trying again is safe: nothing is ever charged or paid twice.',
  flood: 'Too many actions at once: wait a moment and try again.',
  session: 'Discord did not confirm who you are: close the Activity and open it again.',
  unavailable: 'The game could not answer. Trying again is safe: nothing is ever done twice.',
  discord: 'Discord did not answer: try again.',
  relaunch: 'This Activity is not running for you here: close it and launch it again.',
  guildOnly: 'The game is played in a server\u2019s channel, not in a direct message.',
  error: 'Sorry, something went wrong on our side. Trying again is safe.',
  credit: '{0} credit',
  credits: '{0} credits',
  // game.Symbol's names, for the pictures' text.
  symbol: ['gem', 'pipe', 'bomb', 'sabre', 'candle', 'barrel', 'key'],
  hidden: 'hidden',
};

const fr: typeof en = {
  connecting: 'Connexion à Discord…',
  outside: 'Cette page s\u2019ouvre dans Discord : avec le bouton « Gratter à la main » d\u2019une carte /jouer.',
  failed: 'L\u2019activité n\u2019a pas pu démarrer : {0}',
  ticket: 'Ticket n° {0} · mise {1}',
  hint: 'Grattez une ligne du doigt ou à la souris, ou appuyez sur Entrée pour découvrir la suivante.',
  row: 'Ligne {0} : grattez-la, ou appuyez sur Entrée pour la découvrir',
  next: 'Découvrir la ligne suivante',
  auto: 'Auto',
  play: 'Jouer ({0})',
  again: 'Rejouer ({0})',
  chest: 'Ouvrir le coffre',
  chestReady: 'Trois clefs : le coffre au trésor est prêt. Il est toujours gagnant.',
  daily: 'Bonus du jour ({0})',
  chestShut: 'Un coffre au trésor, fermé',
  chestOpen: 'Le coffre au trésor, ouvert',
  balance: 'Solde',
  keys: 'Clefs',
  network: 'La connexion a échoué. Réessayer est sans risque : rien n\u2019est jamais débité ni payé deux fois.',
  flood: 'Trop d\u2019actions à la fois : attendez un instant et réessayez.',
  session: 'Discord n\u2019a pas confirmé qui vous êtes : fermez l\u2019activité et rouvrez-la.',
  unavailable: 'Le jeu n\u2019a pas pu répondre. Réessayer est sans risque : rien n\u2019est jamais fait deux fois.',
  discord: 'Discord n\u2019a pas répondu : réessayez.',
  relaunch: 'Cette activité ne tourne pas pour vous ici : fermez-la et relancez-la.',
  guildOnly: 'On joue dans le salon d\u2019un serveur, pas en message privé.',
  error: 'Désolé, un problème est survenu de notre côté. Réessayer est sans risque.',
  credit: '{0} crédit',
  credits: '{0} crédits',
  symbol: ['pierre précieuse', 'pipe', 'bombe', 'sabre', 'bougie', 'tonneau', 'clef'],
  hidden: 'cachée',
};

export type Words = typeof en;

export const words = (lang: Lang): Words => (lang === 'fr' ? fr : en);

// langOf maps a Discord or browser locale to the page's language: fr-* is
// French, anything else English.
export const langOf = (locale: string | undefined): Lang => (locale?.toLowerCase().startsWith('fr') ? 'fr' : 'en');

// fill replaces {0}, {1}… in s.
export const fill = (s: string, ...args: (string | number)[]): string =>
  s.replace(/\{(\d)\}/g, (_, i: string) => String(args[Number(i)]));

// amount formats cents as the bot does: "5,000.00" or "5 000,00".
export function amount(cents: number, lang: Lang): string {
  const neg = cents < 0;
  const abs = Math.abs(cents);
  const units = Math.floor(abs / 100).toString().replace(/\B(?=(\d{3})+$)/g, lang === 'fr' ? '\u202f' : ',');
  return (neg ? '-' : '') + units + (lang === 'fr' ? ',' : '.') + String(abs % 100).padStart(2, '0');
}

// credits is an amount with its unit: "19.50 credits", "1,00 crédit".
export function credits(cents: number, lang: Lang): string {
  const w = words(lang);
  const one = lang === 'fr' ? Math.abs(cents) < 200 : Math.abs(cents) === 100;
  return fill(one ? w.credit : w.credits, amount(cents, lang));
}
