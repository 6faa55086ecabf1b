// A fake Discord client (served by fakediscord.ActivityClient, for the
// browser tests and clefs try): it frames the Activity at the same origin
// (the SDK answers only its own origin or Discord's) and plays the
// client's side of the Embedded App SDK's postMessage protocol: the
// handshake and READY, AUTHORIZE (a code from the fake Discord, through
// /client/authorize), AUTHENTICATE (the user, through /client/authenticate),
// the instance's participants and the console lines the SDK forwards after
// READY. Its query: user, instance, people (the participants' IDs),
// platform (desktop or mobile), app (the page's path, the Activity's root /
// by default, as Discord's). window.fake records what it saw.
'use strict';
const q = new URLSearchParams(location.search);
const fake = (window.fake = { handshake: null, commands: [], logs: [], errors: [] });
const frame = document.createElement('iframe');
frame.src = (q.get('app') || '/') + '?' + new URLSearchParams({
  instance_id: q.get('instance'),
  frame_id: crypto.randomUUID(),
  platform: q.get('platform') || 'desktop',
});
document.body.append(frame);

const post = (payload) => frame.contentWindow.postMessage([1, payload], location.origin);
const reply = (cmd, nonce, data) => post({ cmd, evt: null, nonce, data });
const refuse = (cmd, nonce, message) => post({ cmd, evt: 'ERROR', nonce, data: { code: 4000, message } });

async function ask(path, body) {
  const r = await fetch(path, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  if (!r.ok) throw new Error(path + ': ' + r.status + ' ' + (await r.text()));
  return r.json();
}

window.addEventListener('message', async (e) => {
  if (e.source !== frame.contentWindow || e.origin !== location.origin || !Array.isArray(e.data)) return;
  const [op, msg] = e.data;
  if (op === 0) { // HANDSHAKE: the SDK is up; READY lets it run
    fake.handshake = msg;
    post({
      cmd: 'DISPATCH', evt: 'READY', nonce: null,
      data: { v: 1, config: { api_endpoint: '//discord.com/api', environment: 'production', cdn_host: 'cdn.discordapp.com' } },
    });
    return;
  }
  if (op !== 1) return; // CLOSE, never sent by this page
  fake.commands.push({ cmd: msg.cmd, args: msg.args });
  try {
    switch (msg.cmd) {
      case 'CAPTURE_LOG':
        fake.logs.push(msg.args);
        return reply(msg.cmd, msg.nonce, null);
      case 'AUTHORIZE':
        return reply(msg.cmd, msg.nonce, await ask('/client/authorize', { ...msg.args, user: q.get('user') }));
      case 'AUTHENTICATE':
        return reply(msg.cmd, msg.nonce, await ask('/client/authenticate', msg.args));
      case 'GET_ACTIVITY_INSTANCE_CONNECTED_PARTICIPANTS': // who is here: see fake.participants below
        return reply(msg.cmd, msg.nonce, { participants: fake.people });
      case 'SUBSCRIBE': // ACTIVITY_INSTANCE_PARTICIPANTS_UPDATE, which fake.participants dispatches
        return reply(msg.cmd, msg.nonce, { evt: msg.evt });
      default:
        return refuse(msg.cmd, msg.nonce, 'the fake client does not know ' + msg.cmd);
    }
  } catch (err) {
    fake.errors.push(String(err));
    refuse(msg.cmd, msg.nonce, String(err));
  }
});

// The instance's connected participants: the query's people (user IDs,
// comma-separated; the user alone by default); fake.participants(ids)
// changes them and tells the page, as a participant joining or leaving.
const person = (id) => ({ id, username: 'player' + id.slice(-4), global_name: 'Player ' + id.slice(-2), discriminator: '0', avatar: null, flags: 0, bot: false });
fake.people = (q.get('people') || q.get('user') || '').split(',').filter(Boolean).map(person);
fake.participants = (ids) => {
  fake.people = ids.map(person);
  post({ cmd: 'DISPATCH', evt: 'ACTIVITY_INSTANCE_PARTICIPANTS_UPDATE', nonce: null, data: { participants: fake.people } });
};
