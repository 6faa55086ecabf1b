// Package config loads the bot's configuration from environment variables
// into a typed, validated Config. It is called once, from main, after
// godotenv.Load (so a .env file fills in what the real environment does not
// set). Every problem is reported at once, each naming its variable.
//
// Usage:
//
//	_ = godotenv.Load() // a missing .env is fine; the real environment wins
//	cfg, err := config.Load(os.Getenv)
//	if err != nil {
//		return err // lists every bad variable
//	}
//	slog.Info("starting", "config", cfg) // Config.LogValue hides the token
//
// See .env.example at the repository root for every variable, its default
// and its meaning.
package config
