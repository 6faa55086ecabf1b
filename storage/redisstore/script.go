package redisstore

import "github.com/redis/go-redis/v9"

// casScript is the store's one write: compare-and-set of a versioned record
// and, in the same atomic step, an append to a capped list in the same hash
// slot. It knows nothing of the game: a record is a hash of two fields, v
// (the version, a decimal string) and p (an opaque payload), and lines are
// opaque strings.
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
// the record as it is ("0" and "" when it does not exist), so that the
// caller can run its transition again without reading it back.
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

var allScripts = []*redis.Script{casScript, appendOnceScript}
