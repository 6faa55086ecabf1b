package settingscache

// len returns the number of cached entries, expired or not: only the
// tests need it.
func (s *Store) len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.m)
}
