// The table: everyone in this Activity instance sees everyone else. Who
// is here comes from Discord's client (the SDK's connected participants,
// their names and avatars from Discord's CDN); what each one plays comes
// from the bot, over one stream of server-sent events per page: "table"
// (every seat, on each connection), then "seat" (a player's ticket after a
// step: the rows the bot recorded as revealed, nothing else) and "leave".
// A win, a third key and a chest opened are told to the whole table.

import type { Client } from './api';
import { h } from './dom';
import { Lang, credits, fill } from './text';

interface Seat {
  user: string;
  ticket?: { id: number; open: boolean; rows: (number[] | null)[]; prize: number; key: boolean };
  keys: number;
  chest?: { id: number; lot: string; prize: number };
}

interface Person {
  id: string;
  username: string;
  global_name?: string | null;
  nickname?: string;
  avatar?: string | null;
}

const maxShown = 25; // the bot's bound: the first 25 to join

const texts = {
  en: { title: 'At the table', watching: 'watching', playing: 'ticket #{0}',
    won: 'won {0}', lost: 'no win', win: '{0} won {1}!', key: '{0} has three keys: the chest is due.', chest: '{0} opened the chest: {1}!' },
  fr: { title: 'À la table', watching: 'regarde', playing: 'ticket n\u00b0{0}',
    won: 'gagne {0}', lost: 'pas de gain', win: '{0} gagne {1} !', key: '{0} a trois clés : le coffre l\u2019attend.', chest: '{0} ouvre le coffre : {1} !' },
};

// startTable shows the table under the card, in root, for the player me;
// maxKeys is the bot's (its state's max_keys).
export function startTable(client: Client, root: HTMLElement, me: string, maxKeys: number, lang: () => Lang) {
  const list = document.createElement('ul');
  const news = document.createElement('p');
  const title = document.createElement('h2');
  const section = document.createElement('section');
  section.className = 'table';
  news.className = 'news';
  news.setAttribute('role', 'status');
  section.append(title, list, news);
  root.append(section);
  let people: Person[] = [];
  const seats = new Map<string, Seat>();
  const t = () => texts[lang()];
  const name = (id: string) => {
    const p = people.find((p) => p.id === id);
    return p ? p.nickname || p.global_name || p.username : '';
  };

  function render() {
    title.textContent = t().title;
    const others = people.slice(0, maxShown).filter((p) => p.id !== me);
    list.replaceChildren(...others.map((p) => row(p, seats.get(p.id))));
    section.hidden = !others.length; // alone, the card keeps the whole screen
  }

  function row(p: Person, s?: Seat): HTMLElement {
    const li = h('li', { class: 'seat' });
    li.dataset.user = p.id;
    // A background, so that an avatar out of reach leaves a plain disc.
    const img = h('span', { class: 'avatar' });
    const url = p.avatar
      ? `https://cdn.discordapp.com/avatars/${p.id}/${p.avatar}.png?size=64`
      : `https://cdn.discordapp.com/embed/avatars/${Number((BigInt(p.id) >> 22n) % 6n)}.png`;
    img.style.backgroundImage = `url("${url}")`;
    const tk = s?.ticket;
    const what = !tk ? t().watching : tk.open ? fill(t().playing, tk.id) : tk.prize > 0 ? fill(t().won, credits(tk.prize, lang())) : t().lost;
    const mini = h('div', { class: 'mini' });
    if (tk) {
      mini.dataset.ticket = String(tk.id);
      for (const r of tk.rows)
        for (let c = 0; c < 3; c++) {
          const cell = h('span', { class: r ? 'pip' : 'pip hidden' });
          if (r) {
            cell.dataset.s = String(r[c]);
            const sym = document.createElement('img');
            sym.src = `art/${r[c]}.png`;
            sym.alt = '';
            cell.append(sym);
          }
          mini.append(cell);
        }
    }
    const keys = h('span', { class: 'seat-keys' }, `${s?.keys ?? 0}/${maxKeys}`);
    li.append(img, h('div', { class: 'who' }, h('b', {}, name(p.id)), h('span', { class: 'what' }, what), keys), mini);
    if (tk && !tk.open) li.dataset.result = String(tk.prize);
    return li;
  }

  // tell says what a seat's change shows the table.
  function tell(s: Seat, was?: Seat) {
    const who = name(s.user) || '?';
    const tk = s.ticket;
    const lines: string[] = [];
    if (tk && !tk.open && tk.prize > 0 && (was?.ticket?.id !== tk.id || was.ticket.open)) lines.push(fill(t().win, who, credits(tk.prize, lang())));
    if (s.keys >= maxKeys && (was?.keys ?? 0) < maxKeys) lines.push(fill(t().key, who));
    if (s.chest && s.chest.id !== was?.chest?.id) lines.push(fill(t().chest, who, credits(s.chest.prize, lang())));
    if (lines.length) news.textContent = lines.join(' ');
  }

  // The participants: from Discord's client, as they come and go.
  const sdk = client.sdk;
  const take = (r: { participants: Person[] }) => {
    people = r.participants;
    render();
  };
  sdk.commands.getInstanceConnectedParticipants().then(take, () => {});
  sdk.subscribe('ACTIVITY_INSTANCE_PARTICIPANTS_UPDATE', take).catch(() => {});

  // The stream: opened with a pass, opened again after the bot closed it
  // (the session ending, a slow page dropped) or a failure, and before the
  // session ends, with the whole table again each time.
  let es: EventSource | null = null;
  let failures = 0;
  let renew = 0;
  async function connect() {
    es?.close();
    clearTimeout(renew);
    let tk: { pass: string; expires_in: number };
    try {
      tk = await client.call<{ pass: string; expires_in: number }>('POST', 'api/table');
    } catch {
      setTimeout(connect, 1000 * Math.min(30, 2 ** failures++));
      return;
    }
    renew = window.setTimeout(connect, Math.max(10, tk.expires_in - 60) * 1000);
    const src = new EventSource('api/table?t=' + encodeURIComponent(tk.pass));
    es = src;
    src.addEventListener('table', (e) => {
      failures = 0;
      seats.clear();
      for (const s of JSON.parse((e as MessageEvent).data) as Seat[]) seats.set(s.user, s);
      render();
    });
    src.addEventListener('seat', (e) => {
      const s = JSON.parse((e as MessageEvent).data) as Seat;
      tell(s, seats.get(s.user));
      seats.set(s.user, s);
      render();
    });
    src.addEventListener('leave', (e) => {
      seats.delete((JSON.parse((e as MessageEvent).data) as Seat).user);
      render();
    });
    src.onerror = () => {
      if (es !== src) return;
      src.close();
      setTimeout(connect, 1000 * Math.min(30, 2 ** failures++));
    };
  }
  render();
  connect();
}

