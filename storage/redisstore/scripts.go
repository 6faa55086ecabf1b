package redisstore

import (
	"fmt"

	"github.com/redis/go-redis/v9"

	"github.com/lesclefsdutresor/clefs/game"
	"github.com/lesclefsdutresor/clefs/storage"
)

// Every script works on one player: KEYS[1] the player's hash p:{g:u},
// KEYS[2] its history list h:{g:u}, KEYS[3] its audit list pa:{g:u}, all in
// the slot of the hash tag {g:u}. ARGV[1] is "1" to create a missing player
// (else the script answers NOPLAYER and changes nothing), ARGV[2] the
// starting balance for creation, ARGV[3] the time in Unix milliseconds.
// Replies are {status, the player's hash packed, extra...}; statuses other
// than OK, DRAWN, RESUMED and SAME are refusals that changed nothing. The
// hash is packed into one string, HGETALL's names and values joined by
// newlines (no name or value the store writes holds one; see parsePacked),
// rather than sent as its list of fifty-odd strings: one reply string for
// Redis to write and go-redis to read instead of fifty.
//
// Numbers are Lua doubles: every amount stays far below 2^53, and integers
// are written back with %d so that they never turn into 1e+15.
var prelude = fmt.Sprintf(`
local STAKE, MAXBAL, HLIMIT, ALIMIT, MAXKEYS = %d, %d, %d, %d, %d
local P, H, A = KEYS[1], KEYS[2], KEYS[3]
local NOW = ARGV[3]
local function fmt(x) return string.format('%%d', x) end
local function num(f) return tonumber(redis.call('HGET', P, f) or '0') end
local function packed() return table.concat(redis.call('HGETALL', P), '\n') end
local function reply(status, ...) return {status, packed(), ...} end
local function hist(kind, tid, tier, key, lot, amount, bal)
  redis.call('LPUSH', H, NOW .. '|' .. kind .. '|' .. tid .. '|' .. tier .. '|' .. key .. '|' .. lot .. '|' .. fmt(amount) .. '|' .. fmt(bal))
  redis.call('LTRIM', H, 0, HLIMIT - 1)
end
local function audit(entry)
  redis.call('LPUSH', A, entry)
  redis.call('LTRIM', A, 0, ALIMIT - 1)
end
if redis.call('EXISTS', P) == 0 then
  if ARGV[1] ~= '1' then return {'NOPLAYER'} end
  redis.call('HSET', P, 'bal', ARGV[2], 'start', ARGV[2], 'keys', 0, 'cp', 0, 'cseq', 0, 'tseq', 0, 'tid', 0,
    'ca', NOW, 'ld', 0, 'pl', 0, 'st', 0, 'wo', 0, 'gr', 0, 'da', 0, 'ch', 0, 'bw', 0, 'wi', 0, 'ky', 0)
end
`, game.Stake, storage.MaxBalance, storage.HistoryLimit, storage.AuditLimit, game.MaxKeys)

// playerScript returns the player.
var playerScript = redis.NewScript(prelude + `return reply('OK')`)

// buyScript: resume the open ticket, or refuse, or debit the stake and open one.
var buyScript = redis.NewScript(prelude + `
if num('tid') > 0 and num('trv') ~= 7 then return reply('RESUMED') end
if num('cp') == 1 then return reply('CHESTDUE') end
local bal = num('bal')
if bal < STAKE then return reply('FUNDS') end
local seq = num('tseq') + 1
redis.call('HSET', P, 'bal', fmt(bal - STAKE), 'pl', fmt(num('pl') + 1), 'st', fmt(num('st') + STAKE),
  'tseq', fmt(seq), 'tid', fmt(seq), 'tb', NOW, 'td', 0, 'to', '', 'tka', 0, 'tc', 0, 'trv', 0)
return reply('OK')
`)

// revealScript answers DRAWN when this call drew the ticket, OK otherwise.
// ARGV[4] ticket id, ARGV[5] rows, ARGV[6..8] the candidate
// outcomes for 0, 1, 2 keys held ("tier|prize|key|row|grid", or empty when
// the client could not draw). The first call keeps the candidate of the keys
// held; the candidates are independent draws, so the one kept has exactly the
// distribution of a draw made here.
var revealScript = redis.NewScript(prelude + `
if num('tid') == 0 or redis.call('HGET', P, 'tid') ~= ARGV[4] then return reply('TICKET') end
local status = 'OK'
if num('td') == 0 then
  status = 'DRAWN'
  local keys = num('keys')
  local c = ARGV[6 + keys]
  if c == nil or c == '' then return reply('NEEDDRAW') end
  local tier, prize, key = string.match(c, '^(%d+)|(%d+)|(%d)|')
  if tier == nil then return reply('INVALID') end
  tier, prize = tonumber(tier), tonumber(prize)
  local bal = num('bal')
  if tier > 0 then
    bal = bal + prize
    redis.call('HSET', P, 'wo', fmt(num('wo') + prize), 'wi', fmt(num('wi') + 1), 'bw', fmt(math.max(num('bw'), prize)))
  end
  local chest = 0
  if key == '1' then
    keys = keys + 1
    redis.call('HSET', P, 'ky', fmt(num('ky') + 1))
    if keys >= MAXKEYS then
      keys, chest = 0, 1
      redis.call('HSET', P, 'cp', 1)
    end
  end
  redis.call('HSET', P, 'bal', fmt(bal), 'keys', keys, 'td', 1, 'to', c, 'tka', keys, 'tc', chest)
  hist('play', ARGV[4], tier, key, 0, prize - STAKE, bal)
end
local trv = num('trv')
local nrv = bit.bor(trv, tonumber(ARGV[5]))
if nrv ~= trv then redis.call('HSET', P, 'trv', nrv) end
return reply(status)
`)

// chestScript: ARGV[4] the chest's seq, ARGV[5] the candidate "lot|prize"
// (or empty when the client could not draw).
var chestScript = redis.NewScript(prelude + `
local seq, cseq = tonumber(ARGV[4]), num('cseq')
if num('cp') ~= 1 or seq ~= cseq + 1 then
  if seq == cseq and redis.call('HEXISTS', P, 'lcl') == 1 then return reply('SAME') end
  return reply('NOCHEST')
end
if ARGV[5] == '' then return reply('NEEDDRAW') end
local lot, prize = string.match(ARGV[5], '^(%d+)|(%d+)$')
if lot == nil then return reply('INVALID') end
prize = tonumber(prize)
local bal = num('bal') + prize
redis.call('HSET', P, 'cp', 0, 'cseq', fmt(seq), 'lcl', lot, 'lcp', fmt(prize), 'bal', fmt(bal),
  'wo', fmt(num('wo') + prize), 'ch', fmt(num('ch') + 1), 'bw', fmt(math.max(num('bw'), prize)))
hist('chest', 0, 0, 0, lot, prize, bal)
return reply('OK')
`)

// dailyScript: ARGV[4] the daily amount, ARGV[5] the cooldown in milliseconds.
var dailyScript = redis.NewScript(prelude + `
local amount = tonumber(ARGV[4])
if amount <= 0 then return reply('DISABLED') end
local ld = num('ld')
if ld > 0 and tonumber(NOW) < ld + tonumber(ARGV[5]) then return reply('COOLDOWN') end
local bal = num('bal') + amount
if bal > MAXBAL then return reply('INVALID') end
redis.call('HSET', P, 'bal', fmt(bal), 'da', fmt(num('da') + amount), 'ld', NOW)
hist('daily', 0, 0, 0, 0, amount, bal)
return reply('OK')
`)

// grantScript: ARGV[4] the amount, ARGV[5] the audit entry.
var grantScript = redis.NewScript(prelude + `
local amount = tonumber(ARGV[4])
local bal = num('bal') + amount
if bal < 0 or bal > MAXBAL then return reply('INVALID') end
redis.call('HSET', P, 'bal', fmt(bal), 'gr', fmt(num('gr') + amount))
hist('grant', 0, 0, 0, 0, amount, bal)
audit(ARGV[5])
return reply('OK')
`)

// setScript: ARGV[4] the new balance, ARGV[5] the audit entry.
var setScript = redis.NewScript(prelude + `
local bal = tonumber(ARGV[4])
local diff = bal - num('bal')
redis.call('HSET', P, 'bal', fmt(bal), 'gr', fmt(num('gr') + diff))
hist('set-balance', 0, 0, 0, 0, diff, bal)
audit(ARGV[5])
return reply('OK')
`)

// resetScript: ARGV[2] the starting balance, ARGV[4] the audit entry (empty
// for a guild reset, audited once for the guild).
var resetScript = redis.NewScript(prelude + `
local old = num('bal')
redis.call('HDEL', P, 'tb', 'td', 'to', 'tka', 'tc', 'trv', 'lcl', 'lcp')
redis.call('HSET', P, 'bal', ARGV[2], 'start', ARGV[2], 'keys', 0, 'cp', 0, 'tid', 0, 'ld', 0,
  'pl', 0, 'st', 0, 'wo', 0, 'gr', 0, 'da', 0, 'ch', 0, 'bw', 0, 'wi', 0, 'ky', 0)
hist('reset', 0, 0, 0, 0, tonumber(ARGV[2]) - old, tonumber(ARGV[2]))
if ARGV[4] ~= '' then audit(ARGV[4]) end
return reply('OK')
`)

// importScript writes one player if absent: ARGV[4..] field/value pairs of
// the hash, then "--", then history entries newest first.
var importScript = redis.NewScript(`
if redis.call('EXISTS', KEYS[1]) == 1 or redis.call('EXISTS', KEYS[2]) == 1 then return 'DUP' end
local i = 1
while ARGV[i] ~= '--' do
  redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1])
  i = i + 2
end
for j = i + 1, #ARGV do redis.call('RPUSH', KEYS[2], ARGV[j]) end
return 'OK'
`)

var allScripts = []*redis.Script{playerScript, buyScript, revealScript, chestScript, dailyScript, grantScript, setScript, resetScript, importScript}
