package redisstore

import "github.com/redis/go-redis/v9"

// playerScript is a player's one write: in the player's hash slot, it
// looks the operation up among the remembered ones, compares and sets the
// record's version, and remembers the operation, appends the history lines
// and the revealed seed, each to a capped list, all in one atomic step. It
// knows nothing of the game: a record is a hash of a version v (a decimal
// string), a payload p, the payload's seeds s (written only when they
// change), a moderator log line a (opaque strings), and one field
// o:<operation ID> per operation remembered, whose value is the
// operation's result (opaque); the operations' IDs are in a list, oldest
// first, that bounds them.
//
//	KEYS[1]  the record (hash: v, p, s, a, o:<op>…)
//	KEYS[…]  then, in this order and only when used: the operations'
//	         list (when ARGV[6] is not ""), the ticket lines, the other
//	         history lines (each when the write adds some), the reveals
//	         (when the reveal is not "")
//	ARGV[1]  the version expected ("0": the record must not exist)
//	ARGV[2]  the new version
//	ARGV[3]  the new payload
//	ARGV[4]  the new seeds ("" when they have not changed)
//	ARGV[5]  the moderator log line of the write; "" for none (a is
//	         removed), "-" for none when the record has none either
//	ARGV[6]  the operation's ID ("" for none)
//	ARGV[7]  its result
//	ARGV[8]  how many operations the record remembers
//	ARGV[9]  how many ticket lines their list keeps
//	ARGV[10] n, the number of ticket lines, then ARGV[11…10+n] the lines,
//	         oldest first (the list is newest first)
//	ARGV[11+n] how many other lines their list keeps, ARGV[12+n] m, their
//	         number, then the m lines, as above
//	ARGV[13+n+m] how many reveals the list keeps, ARGV[14+n+m] the reveal ("")
//
// It returns {"OK"} after writing; {"REPEAT", result, v, p, s, a} when the
// record remembers the operation, writing nothing; {"CONFLICT", v, p, s, a}
// when the version is not the one expected ("0" and "" when the record
// does not exist), so that the caller can run its transition again
// without reading the record back.
var playerScript = redis.NewScript(`
local rec, op = KEYS[1], ARGV[6]
local cur = redis.call('HMGET', rec, 'v', 'o:' .. op)
if op ~= '' and cur[2] then
  local r = redis.call('HMGET', rec, 'p', 's', 'a')
  return {'REPEAT', cur[2], cur[1] or '0', r[1] or '', r[2] or '', r[3] or ''}
end
local v = cur[1] or '0'
if v ~= ARGV[1] then
  local r = redis.call('HMGET', rec, 'p', 's', 'a')
  return {'CONFLICT', v, r[1] or '', r[2] or '', r[3] or ''}
end
local set = {'v', ARGV[2], 'p', ARGV[3]}
if ARGV[4] ~= '' then
  set[#set + 1], set[#set + 2] = 's', ARGV[4]
end
if ARGV[5] == '' then
  redis.call('HDEL', rec, 'a')
elseif ARGV[5] ~= '-' then
  set[#set + 1], set[#set + 2] = 'a', ARGV[5]
end
if op ~= '' then
  set[#set + 1], set[#set + 2] = 'o:' .. op, ARGV[7]
end
redis.call('HSET', rec, unpack(set))
local k = 2
if op ~= '' then
  local n = redis.call('RPUSH', KEYS[k], op) - tonumber(ARGV[8])
  if n > 0 then
    local old = redis.call('LPOP', KEYS[k], n)
    for i = 1, #old do
      old[i] = 'o:' .. old[i]
    end
    redis.call('HDEL', rec, unpack(old))
  end
  k = k + 1
end
local a = 9
for _ = 1, 2 do
  local n = tonumber(ARGV[a + 1])
  if n > 0 then
    redis.call('LPUSH', KEYS[k], unpack(ARGV, a + 2, a + 1 + n))
    redis.call('LTRIM', KEYS[k], 0, tonumber(ARGV[a]) - 1)
    k = k + 1
  end
  a = a + 2 + n
end
if ARGV[a + 1] ~= '' then
  redis.call('LPUSH', KEYS[k], ARGV[a + 1])
  redis.call('LTRIM', KEYS[k], 0, tonumber(ARGV[a]) - 1)
end
return {'OK'}
`)

// migrateScript rewrites, once, a player that the release before the
// schema wrote: if the record still has the version and the payload the
// caller read, it sets the new version, payload and moderator log line,
// replaces the history list with the lines given, the reveals list with
// the reveals given, and remembers the operations given; otherwise
// (someone else migrated or wrote it) it changes nothing.
//
//	KEYS[1..4]  the record, the operations' list, the history, the reveals
//	ARGV[1]     the version read
//	ARGV[2]     the payload read
//	ARGV[3]     the new version
//	ARGV[4]     the new payload
//	ARGV[5]     the new seeds
//	ARGV[6]     the moderator log line ("" none)
//	ARGV[7]     n, the number of history lines, then the lines, newest first
//	then        m, the number of reveals, then the reveals, newest first
//	then        pairs of an operation's ID and its result, oldest first
//
// It returns 1 if it rewrote the record, 0 if not.
var migrateScript = redis.NewScript(`
local cur = redis.call('HMGET', KEYS[1], 'v', 'p')
if cur[1] ~= ARGV[1] or cur[2] ~= ARGV[2] then
  return 0
end
redis.call('HSET', KEYS[1], 'v', ARGV[3], 'p', ARGV[4], 's', ARGV[5])
if ARGV[6] ~= '' then
  redis.call('HSET', KEYS[1], 'a', ARGV[6])
end
local i = 7
local n = tonumber(ARGV[i])
redis.call('DEL', KEYS[3])
if n > 0 then
  redis.call('RPUSH', KEYS[3], unpack(ARGV, i + 1, i + n))
end
i = i + n + 1
local m = tonumber(ARGV[i])
redis.call('DEL', KEYS[4])
if m > 0 then
  redis.call('RPUSH', KEYS[4], unpack(ARGV, i + 1, i + m))
end
i = i + m + 1
redis.call('DEL', KEYS[2])
while i < #ARGV do
  redis.call('HSET', KEYS[1], 'o:' .. ARGV[i], ARGV[i + 1])
  redis.call('RPUSH', KEYS[2], ARGV[i])
  i = i + 2
end
return 1
`)

// casScript is a guild's write, and an import's: compare-and-set of a
// versioned record and, in the same atomic step, an append to a capped
// list in the same hash slot. It knows nothing of the game: a record is a
// hash of a version v (a decimal string), an opaque payload p and an
// optional moderator log line a (the last write's, for recoverAudit), and
// lines are opaque strings.
//
//	KEYS[1]  the record (hash: v, p, a)
//	KEYS[2]  the list the lines go to (only when there are lines)
//	ARGV[1]  the version expected ("0": the record must not exist)
//	ARGV[2]  the new version
//	ARGV[3]  the new payload
//	ARGV[4]  the moderator log line of the write ("" for none: a is removed)
//	ARGV[5]  how many lines the list keeps
//	ARGV[6…] lines to push, oldest first (the list is newest first)
//
// It returns {"OK"} after writing, or {"CONFLICT", version, payload, line}
// with the record as it is ("0", "" and "" when it does not exist), so
// that the caller can run its transition again without reading it back.
var casScript = redis.NewScript(`
local v = redis.call('HGET', KEYS[1], 'v') or '0'
if v ~= ARGV[1] then
  local cur = redis.call('HMGET', KEYS[1], 'p', 'a')
  return {'CONFLICT', v, cur[1] or '', cur[2] or ''}
end
redis.call('HSET', KEYS[1], 'v', ARGV[2], 'p', ARGV[3])
if ARGV[4] ~= '' then
  redis.call('HSET', KEYS[1], 'a', ARGV[4])
else
  redis.call('HDEL', KEYS[1], 'a')
end
if #ARGV > 5 then
  redis.call('LPUSH', KEYS[2], unpack(ARGV, 6))
  redis.call('LTRIM', KEYS[2], 0, tonumber(ARGV[5]) - 1)
end
return {'OK'}
`)

// migrateGuildScript rewrites, once, a guild record that the release
// before the schema wrote: if the record still has the version and the
// payload the caller read, it sets the new payload and, when there is one,
// the moderator log line of its last write; otherwise (someone else
// migrated or wrote it) it changes nothing. The version is kept.
//
//	KEYS[1]  the record (hash: v, p, a)
//	ARGV[1]  the version read
//	ARGV[2]  the payload read
//	ARGV[3]  the new payload
//	ARGV[4]  the moderator log line ("" none)
//
// It returns 1 if it rewrote the record, 0 if not.
var migrateGuildScript = redis.NewScript(`
local cur = redis.call('HMGET', KEYS[1], 'v', 'p')
if cur[1] ~= ARGV[1] or cur[2] ~= ARGV[2] then
  return 0
end
redis.call('HSET', KEYS[1], 'p', ARGV[3])
if ARGV[4] ~= '' then
  redis.call('HSET', KEYS[1], 'a', ARGV[4])
end
return 1
`)

// appendOnceScript pushes a line to a capped list unless the list already
// holds it: so that a line sent twice (go-redis resends a command whose
// reply timed out; a moderator retries) is kept once. Lines carry a unique
// ID, so two equal lines are the same line. LPOS is O(list length), fine
// for the moderator log (storage.AuditLimit lines, written rarely).
//
//	KEYS[1]  the list
//	ARGV[1]  the line
//	ARGV[2]  how many lines the list keeps
//
// It returns 1 if it pushed the line, 0 if the list had it.
var appendOnceScript = redis.NewScript(`
if redis.call('LPOS', KEYS[1], ARGV[1]) then
  return 0
end
redis.call('LPUSH', KEYS[1], ARGV[1])
redis.call('LTRIM', KEYS[1], 0, tonumber(ARGV[2]) - 1)
return 1
`)

var allScripts = []*redis.Script{playerScript, migrateScript, casScript, migrateGuildScript, appendOnceScript}
