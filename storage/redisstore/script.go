package redisstore

import "github.com/redis/go-redis/v9"

// playerScript is a player's one write, in the guild's hash slot, as
// docs/STORAGE.md §5 describes it. It knows nothing of the game: results
// and lines are opaque strings.
//
//	KEYS[1]  the record (hash: v, p, s, o:<op>…)
//	KEYS[…]  then, in this order and only when used: the operations'
//	         list (when ARGV[5] is not ""), the sorted set (when ARGV[8]
//	         is not ""), and each list that gets lines
//	ARGV[1]  the version expected ("0": the record must not exist)
//	ARGV[2]  the new version
//	ARGV[3]  the new payload
//	ARGV[4]  the new seeds ("" when they have not changed)
//	ARGV[5]  the operation's ID ("" for none)
//	ARGV[6]  its result
//	ARGV[7]  how many operations the record remembers
//	ARGV[8]  the member to set in the sorted set ("" for none), then its
//	         score (only with a member)
//	then     four lists, one after the other: n, the number of lines to
//	         push, then (only when n > 0) how many lines the list keeps
//	         and the n lines, oldest first (a list is newest first); in
//	         the store's order, the ticket lines, the other history
//	         lines, the reveals, the moderator log
//
// It returns {"OK"} after writing; {"REPEAT", result, v, p, s} when the
// record remembers the operation, writing nothing; {"CONFLICT", v, p, s}
// when the version is not the one expected ("0" and "" when the record
// does not exist), the record for the caller's next attempt.
var playerScript = redis.NewScript(`
local rec, op = KEYS[1], ARGV[5]
local cur = redis.call('HMGET', rec, 'v', 'o:' .. op)
if op ~= '' and cur[2] then
  local r = redis.call('HMGET', rec, 'p', 's')
  return {'REPEAT', cur[2], cur[1] or '0', r[1] or '', r[2] or ''}
end
local v = cur[1] or '0'
if v ~= ARGV[1] then
  local r = redis.call('HMGET', rec, 'p', 's')
  return {'CONFLICT', v, r[1] or '', r[2] or ''}
end
local set = {'v', ARGV[2], 'p', ARGV[3]}
if ARGV[4] ~= '' then
  set[#set + 1], set[#set + 2] = 's', ARGV[4]
end
if op ~= '' then
  set[#set + 1], set[#set + 2] = 'o:' .. op, ARGV[6]
end
redis.call('HSET', rec, unpack(set))
local k = 2
if op ~= '' then
  local n = redis.call('RPUSH', KEYS[k], op) - tonumber(ARGV[7])
  if n > 0 then
    local old = redis.call('LPOP', KEYS[k], n)
    for i = 1, #old do
      old[i] = 'o:' .. old[i]
    end
    redis.call('HDEL', rec, unpack(old))
  end
  k = k + 1
end
local a = 8
if ARGV[a] ~= '' then
  redis.call('ZADD', KEYS[k], ARGV[a + 1], ARGV[a])
  k, a = k + 1, a + 2
else
  a = a + 1
end
for _ = 1, 4 do
  local n = tonumber(ARGV[a])
  if n > 0 then
    redis.call('LPUSH', KEYS[k], unpack(ARGV, a + 2, a + 1 + n))
    redis.call('LTRIM', KEYS[k], 0, tonumber(ARGV[a + 1]) - 1)
    k, a = k + 1, a + 2 + n
  else
    a = a + 1
  end
end
return {'OK'}
`)

// casScript is a guild's write, and an import's: compare-and-set of a
// record (a decimal version v, an opaque payload p) and, in the same
// atomic step, opaque lines pushed to a capped list in its hash slot.
//
//	KEYS[1]  the record (hash: v, p)
//	KEYS[2]  the list the lines go to (only when there are lines)
//	ARGV[1]  the version expected ("0": the record must not exist)
//	ARGV[2]  the new version
//	ARGV[3]  the new payload
//	ARGV[4]  how many lines the list keeps
//	ARGV[5…] lines to push, oldest first (the list is newest first)
//
// It returns {"OK"} after writing, or {"CONFLICT", version, payload} with
// the record as it is ("0" and "" when it does not exist), as playerScript.
var casScript = redis.NewScript(`
local v = redis.call('HGET', KEYS[1], 'v') or '0'
if v ~= ARGV[1] then
  return {'CONFLICT', v, redis.call('HGET', KEYS[1], 'p') or ''}
end
redis.call('HSET', KEYS[1], 'v', ARGV[2], 'p', ARGV[3])
if #ARGV > 4 then
  redis.call('LPUSH', KEYS[2], unpack(ARGV, 5))
  redis.call('LTRIM', KEYS[2], 0, tonumber(ARGV[4]) - 1)
end
return {'OK'}
`)

// settleScript writes a versioned record's v again, unchanged, so that the
// connection's WAIT after it waits for the record as it is (Store.settle),
// if the record holds the field (with the value given, if not "").
//
//	KEYS[1]  the record (hash: v, …)
//	ARGV[1]  the field, ARGV[2] its value ("": any)
//
// It returns {"OK"}, or {"CHANGED"} without writing.
var settleScript = redis.NewScript(`
local v = redis.call('HGET', KEYS[1], 'v')
local f = redis.call('HGET', KEYS[1], ARGV[1])
if not v or not f or (ARGV[2] ~= '' and f ~= ARGV[2]) then
  return {'CHANGED'}
end
redis.call('HSET', KEYS[1], 'v', v)
return {'OK'}
`)
