package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/joho/godotenv"

	"github.com/lesclefsdutresor/clefs/storage"
	"github.com/lesclefsdutresor/clefs/storage/backend"
	"github.com/lesclefsdutresor/clefs/storage/redisstore"
)

// storeUsage is a store subcommand's paragraph of usage.
const storeUsage = `The store: -redis URL, else -data FILE, else REDIS_URL, else DATA_PATH
(each variable from the environment, then .env), else ` + backend.DefaultDataPath + `.
A flag wins over the environment; giving both -redis and -data is an error.
The store chosen is printed on stderr ("store: …") before anything is done.`

// storeFlags are the flags the store subcommands share: which store to open.
type storeFlags struct {
	redisURL, dataPath string
	set                *flag.FlagSet // to tell a flag given from one left out
	// checkFile, when set, runs on an embedded file before it is opened
	// (audit: boltstore.CheckFile); its error stops the opening.
	checkFile func(path string) error
}

func (f *storeFlags) register(fs *flag.FlagSet) {
	f.set = fs
	fs.StringVar(&f.redisURL, "redis", "", "the Redis store's `URL` (default $REDIS_URL; wins over $DATA_PATH), one of:\n  "+
		strings.Join(strings.Split(redisstore.URLForms, ", "), "\n  "))
	fs.StringVar(&f.dataPath, "data", "", "the embedded store's `FILE` (default $DATA_PATH, else "+backend.DefaultDataPath+
		"; wins over $REDIS_URL)")
}

// storeChoice is the store a subcommand acts on, and where that came from.
type storeChoice struct {
	redisURL string // empty for the embedded store
	dataPath string
	from     string // "-redis", "-data", "REDIS_URL in .env", "the default"…
}

// choose applies the precedence of storeUsage. A variable is read from the
// environment when it is there, even empty, else from .env, as the bot
// does; an empty value counts as unset.
func (f *storeFlags) choose(lookupEnv func(string) (string, bool), dotenv func() (map[string]string, error)) (storeChoice, error) {
	given := map[string]bool{}
	f.set.Visit(func(fl *flag.Flag) { given[fl.Name] = true })
	switch {
	case given["redis"] && given["data"]:
		return storeChoice{}, usageError{"give -redis or -data, not both"}
	case given["redis"] && f.redisURL == "":
		return storeChoice{}, usageError{fmt.Sprintf("-redis needs a URL (%s)", redisstore.URLForms)}
	case given["data"] && f.dataPath == "":
		return storeChoice{}, usageError{"-data needs a file name"}
	case given["redis"]:
		return storeChoice{redisURL: f.redisURL, from: "-redis"}, nil
	case given["data"]:
		return storeChoice{dataPath: f.dataPath, from: "-data"}, nil
	}
	readDotenv := sync.OnceValues(dotenv) // read only if a variable is not in the environment
	for _, name := range []string{"REDIS_URL", "DATA_PATH"} {
		v, ok := lookupEnv(name)
		from := name
		if !ok {
			file, err := readDotenv()
			if err != nil && !errors.Is(err, fs.ErrNotExist) {
				return storeChoice{}, fmt.Errorf("read .env: %w", err)
			}
			v, from = file[name], name+" in .env"
		}
		switch {
		case v != "" && name == "REDIS_URL":
			return storeChoice{redisURL: v, from: from}, nil
		case v != "":
			return storeChoice{dataPath: v, from: from}, nil
		}
	}
	return storeChoice{dataPath: backend.DefaultDataPath, from: "the default"}, nil
}

// openMode says what a subcommand may do to an embedded file.
type openMode int

const (
	mustExist openMode = iota // export, audit: a missing file is an error, never a new store
	mayCreate                 // import: a missing file is created, not a missing directory (a typo)
)

// open chooses the store, prints it on stderr, checks an embedded file's
// path as mode says, and opens it; nothing is created on error.
func (f *storeFlags) open(ctx context.Context, mode openMode, stderr io.Writer) (storage.Store, storage.Dumper, error) {
	c, err := f.choose(os.LookupEnv, func() (map[string]string, error) { return godotenv.Read() })
	if err != nil {
		return nil, nil, err
	}
	fmt.Fprintf(stderr, "store: %s (from %s)\n", backend.Describe(c.redisURL, c.dataPath), c.from) // no secret: redis://:xxxxx@host
	if c.redisURL == "" {
		err := checkDataPath(c.dataPath, mode)
		if err == nil && f.checkFile != nil {
			err = f.checkFile(c.dataPath)
		}
		if err != nil {
			return nil, nil, fmt.Errorf("store %s: %w", backend.Describe("", c.dataPath), err)
		}
	}
	st, err := backend.Open(ctx, c.redisURL, c.dataPath, storage.Options{})
	if err != nil {
		return nil, nil, fmt.Errorf("store %s: %w", backend.Describe(c.redisURL, c.dataPath), err)
	}
	d, ok := st.(storage.Dumper)
	if !ok {
		st.Close()
		return nil, nil, fmt.Errorf("store %T cannot be exported", st)
	}
	return st, d, nil
}

// checkDataPath refuses an embedded store's path that mode does not allow.
func checkDataPath(path string, mode openMode) error {
	fi, err := os.Stat(path)
	switch {
	case err == nil && fi.IsDir():
		return errors.New("is a directory: give the store's file, e.g. " + filepath.Join(path, "clefs.db"))
	case err == nil && !fi.Mode().IsRegular():
		return errors.New("is not a regular file")
	case err == nil && fi.Size() == 0 && mode == mustExist:
		return errors.New("is an empty file, not a store")
	case err == nil:
		return nil
	case !errors.Is(err, fs.ErrNotExist):
		return pathErr(err)
	case mode == mustExist:
		return errors.New("no such file: nothing to read (check -data or DATA_PATH, or give -redis)")
	}
	dir := filepath.Dir(path)
	if di, err := os.Stat(dir); err != nil || !di.IsDir() {
		return fmt.Errorf("directory %s does not exist: create it first, or check -data or DATA_PATH", dir)
	}
	return nil
}
