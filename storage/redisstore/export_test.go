package redisstore

// WithCacheSize sets how many players the store remembers (0: none, each
// step reads the player first); production keeps DefaultCacheSize.
func WithCacheSize(n int) Option {
	return func(s *Store) { s.cache = newCache(n) }
}
